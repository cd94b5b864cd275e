// Gatsby's unit-testing setup: the same Babel preset Gatsby builds with, plus TypeScript.
// https://www.gatsbyjs.com/docs/how-to/testing/unit-testing/
const babelJest = require("babel-jest").default;

module.exports = babelJest.createTransformer({
  presets: ["babel-preset-gatsby", "@babel/preset-typescript"],
});
