// Gatsby's Link expects the runtime loader to exist.
global.___loader = { enqueue: jest.fn() };
