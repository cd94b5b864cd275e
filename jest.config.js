// Five projects: "unit" runs in jsdom against the source; "content" checks
// the legal MDX files; "server" runs the signup endpoint and the preview
// server for real on 127.0.0.1; "build" reads the output of `gatsby build`
// in public/, and "e2e" drives Chromium against it through the project's own
// server. Both run after the build (see npm test).
// Jest's guard against a hung test, stretched by TEST_PATIENCE by the rule of
// test/support/patience.ts, which stretches the tests' own (npm test sets it
// for the projects that run at a low priority beside the browsers).
const factor = Number(process.env.TEST_PATIENCE ?? "1");
const patience = Number.isFinite(factor) && factor > 1 ? factor : 1;

const shared = {
  // .mts: the Netlify functions are ES modules, as Lambda loads them with require(esm) off.
  transform: { "^.+\\.(?:[jt]sx?|mts)$": "<rootDir>/jest-preprocess.js" },
  moduleFileExtensions: ["js", "mjs", "cjs", "jsx", "ts", "tsx", "mts", "json", "node"],
  moduleNameMapper: {
    "\\.css$": "identity-obj-proxy",
    // @netlify/api is ESM only; Babel compiles it for Jest but for this one file (see the stand-in).
    "^\\./open_api\\.js$": "<rootDir>/test/support/netlify-open-api.cjs",
    // A function is imported as TypeScript writes it (waitlist-signup.mjs), and is a .mts file.
    "^(.*/netlify/functions/[\\w-]+)\\.mjs$": "$1.mts",
  },
  testPathIgnorePatterns: ["/node_modules/", "/\\.cache/", "/public/"],
  transformIgnorePatterns: [
    "node_modules/(?!(gatsby|gatsby-script|gatsby-link|@mdx-js/react|@netlify/api|@netlify/blobs|@netlify/runtime-utils|@netlify/otel|p-limit|yocto-queue|node-fetch|data-uri-to-buffer|fetch-blob|formdata-polyfill|p-wait-for|p-timeout|picoquery)/)",
  ],
  globals: { __PATH_PREFIX__: "" },
};

/** @type {import('jest').Config} */
module.exports = {
  // A global option: in a project's config Jest ignores it.
  testTimeout: 5_000 * patience,
  projects: [
    {
      ...shared,
      displayName: "unit",
      testEnvironment: "jsdom",
      testEnvironmentOptions: { url: "http://localhost/" },
      testMatch: ["<rootDir>/src/**/*.test.ts?(x)"],
      setupFiles: ["<rootDir>/loadershim.js"],
      setupFilesAfterEnv: ["<rootDir>/jest.setup.ts"],
    },
    {
      ...shared,
      displayName: "content",
      testEnvironment: "node",
      testMatch: ["<rootDir>/test/content/**/*.test.ts"],
    },
    {
      ...shared,
      displayName: "server",
      testEnvironment: "node",
      testMatch: [
        "<rootDir>/server/**/*.test.ts",
        "<rootDir>/config/**/*.test.ts",
        "<rootDir>/waitlist/**/*.test.ts",
        "<rootDir>/cli/**/*.test.ts",
        "<rootDir>/scripts/**/*.test.ts",
        "<rootDir>/test/server/**/*.test.ts",
        "<rootDir>/test/structure/**/*.test.ts",
        "<rootDir>/after-build/**/*.test.ts",
        "<rootDir>/http/**/*.test.ts",
      ],
    },
    {
      ...shared,
      displayName: "e2e",
      testEnvironment: "node",
      globalSetup: "<rootDir>/e2e/global-setup.ts",
      testMatch: ["<rootDir>/e2e/**/*.test.ts"],
    },
    {
      ...shared,
      displayName: "build",
      testEnvironment: "jsdom",
      testMatch: ["<rootDir>/test/build/**/*.test.ts"],
    },
  ],
};
