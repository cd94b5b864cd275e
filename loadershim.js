// Gatsby's Link expects the runtime loader to exist.
global.___loader = { enqueue: jest.fn() };
// jsdom lacks TextEncoder, which react-dom/server needs to prerender a page's Head in tests.
const { TextEncoder, TextDecoder } = require("node:util");
Object.assign(global, { TextEncoder, TextDecoder });
