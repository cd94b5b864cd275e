// Jest's module system cannot run @netlify/api's lib/open_api.js, the one file of it that uses import.meta
// (to require the spec); jest.config.js maps it here. Same export, same spec: the client itself runs unchanged.
module.exports = { openApiSpec: require("@netlify/open-api") };
