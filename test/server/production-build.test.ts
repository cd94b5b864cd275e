import { onPreBuild } from "../../gatsby-node";

/*
 * What a production build refuses before it renders a page: a policy that names no controller, or a legal page
 * without the real verification token. Local and preview builds warn and go on with placeholders.
 */

const complete = {
  TIKTOK_SITE_VERIFICATION: "abc123",
  CONTROLLER_NAME: "Tandem Labs GmbH",
  CONTROLLER_ADDRESS: "Example Street 1, 10115 Berlin, Germany",
};

function preBuild(env: Record<string, string>) {
  const saved = { ...process.env };
  const reporter = { panic: jest.fn(), warn: jest.fn() };
  for (const name of ["CONTEXT", ...Object.keys(complete)]) delete process.env[name];
  Object.assign(process.env, env);
  try {
    (onPreBuild as (args: unknown) => void)({ reporter });
  } finally {
    process.env = saved;
  }
  return { panics: reporter.panic.mock.calls.map(([message]) => message), warnings: reporter.warn.mock.calls.length };
}

describe("a production build", () => {
  it("goes on when the token and the controller are set", () => {
    expect(preBuild({ ...complete, CONTEXT: "production" })).toEqual({ panics: [], warnings: 0 });
  });

  it.each(Object.keys(complete))("fails without %s, naming it", (name) => {
    const env: Record<string, string> = { ...complete, CONTEXT: "production" };
    delete env[name];
    const { panics } = preBuild(env);
    expect(panics).toEqual([expect.stringMatching(new RegExp(`^${name} is not set: `))]);
  });
});

describe("a local or preview build", () => {
  it("warns for each setting left out, and goes on", () => {
    expect(preBuild({ CONTEXT: "deploy-preview" })).toEqual({ panics: [], warnings: 3 });
    expect(preBuild({})).toEqual({ panics: [], warnings: 3 });
  });
});
