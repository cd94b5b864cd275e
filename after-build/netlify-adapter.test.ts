import { createRequire } from "node:module";
import { readEnv } from "../config/env";
import { buildsForNetlify } from "./netlify-adapter";

// Gatsby's own list of the adapters it picks by itself (CommonJS, with no types).
const gatsbyAdapters = createRequire(__filename)("gatsby/adapters") as { name: string; test: () => boolean }[];

describe("buildsForNetlify", () => {
  const saved = { NETLIFY: process.env.NETLIFY, NETLIFY_LOCAL: process.env.NETLIFY_LOCAL };
  afterEach(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it.each([
    ["a build on Netlify", { NETLIFY: "true" }],
    ["netlify serve (NETLIFY_LOCAL alone)", { NETLIFY_LOCAL: "true" }],
    ["npm run build:netlify", { NETLIFY: "true", NETLIFY_LOCAL: "true" }],
    ["npm run build", {}],
  ])("names the site's adapter wherever Gatsby would pick its own Netlify adapter: %s", (_, env) => {
    delete process.env.NETLIFY;
    delete process.env.NETLIFY_LOCAL;
    Object.assign(process.env, env);
    const gatsbyPicksNetlify = gatsbyAdapters.find((adapter) => adapter.name === "Netlify")!.test();
    expect(buildsForNetlify(readEnv(process.env))).toBe(gatsbyPicksNetlify);
    expect(gatsbyPicksNetlify).toBe(Object.keys(env).length > 0);
  });
});
