import { site } from "../../config/site";
import { onPreBuild, onPreInit } from "../../gatsby-node";
import { claimEnds } from "../../scripts/legal-content/claims";

/*
 * What a build for a public site refuses before it renders a page: a policy that names no controller or no host, or
 * a legal page without the real verification token. A public site is a Netlify production deploy, or any build whose
 * SITE_URL is not a local address (a self-hosted one). Local and preview builds warn and go on with placeholders, so
 * `npm install && npm start` works on a fresh machine with nothing set.
 */

const complete = {
  TIKTOK_SITE_VERIFICATION: "abc123",
  CONTROLLER_NAME: "Tandem Labs GmbH",
  CONTROLLER_ADDRESS: "Example Street 1, 10115 Berlin, Germany",
  HOSTING_PROVIDER: "Hetzner Online GmbH (Germany)",
};

function preBuild(env: Record<string, string>) {
  const saved = { ...process.env };
  const reporter = { panic: jest.fn(), warn: jest.fn(), panicOnBuild: jest.fn() };
  for (const name of ["CONTEXT", "SITE_URL", "NETLIFY", "NETLIFY_LOCAL", ...Object.keys(complete)]) {
    delete process.env[name];
  }
  Object.assign(process.env, env);
  try {
    (onPreBuild as (args: unknown) => void)({ reporter });
  } finally {
    process.env = saved;
  }
  return {
    panics: reporter.panic.mock.calls.map(([message]) => message),
    warnings: reporter.warn.mock.calls.map(([message]) => message),
  };
}

describe.each([
  ["a Netlify production deploy", { CONTEXT: "production", NETLIFY: "true" }, /\(CONTEXT=production\)/],
  [
    "a self-hosted build for a public address",
    { SITE_URL: "https://jointandem.app" },
    /\(SITE_URL is https:\/\/jointandem\.app, not a local address\)/,
  ],
])("%s", (_name, context, reason) => {
  it("goes on when the token, the controller and the host are set", () => {
    expect(preBuild({ ...complete, ...context })).toEqual({ panics: [], warnings: [] });
  });

  it.each(["TIKTOK_SITE_VERIFICATION", "CONTROLLER_NAME", "CONTROLLER_ADDRESS"])(
    "fails without %s, naming it and why the build is public",
    (name) => {
      const env: Record<string, string> = { ...complete, ...context };
      delete env[name];
      const { panics } = preBuild(env);
      expect(panics).toEqual([expect.stringMatching(new RegExp(`^${name} is not set: `))]);
      expect(panics[0]).toMatch(reason);
    },
  );
});

describe("the hosting provider", () => {
  it("is Netlify on a Netlify production deploy, unless HOSTING_PROVIDER says otherwise", () => {
    const { HOSTING_PROVIDER: _host, ...rest } = complete;
    expect(preBuild({ ...rest, CONTEXT: "production", NETLIFY: "true" })).toEqual({ panics: [], warnings: [] });
  });

  it("must be named for a self-hosted public site", () => {
    const { HOSTING_PROVIDER: _host, ...rest } = complete;
    expect(preBuild({ ...rest, SITE_URL: "https://jointandem.app" }).panics).toEqual([
      expect.stringMatching(
        /^HOSTING_PROVIDER is not set: .*\(SITE_URL is https:\/\/jointandem\.app, not a local address\)/s,
      ),
    ]);
  });
});

describe("a local or preview build", () => {
  it("warns for each setting left out, naming it, and goes on", () => {
    const names = /^(TIKTOK_SITE_VERIFICATION|CONTROLLER_NAME|CONTROLLER_ADDRESS|HOSTING_PROVIDER) is not set: /;
    const local: Record<string, string>[] = [
      {},
      { SITE_URL: "http://localhost:9000" },
      { SITE_URL: "http://127.0.0.1:9404" },
    ];
    for (const env of local) {
      const { panics, warnings } = preBuild(env);
      expect(panics).toEqual([]);
      expect(warnings).toHaveLength(4);
      for (const warning of warnings) expect(warning).toMatch(names);
    }
    // A preview on Netlify is not the public site: its host is Netlify's, and the rest are warned about.
    expect(preBuild({ CONTEXT: "deploy-preview", NETLIFY: "true" })).toEqual({
      panics: [],
      warnings: [expect.any(String), expect.any(String), expect.any(String)],
    });
  });
});

describe("a claimed date past (config/site.ts's launch)", () => {
  it("is a warning in the build's output that names it, never a refusal", () => {
    const reporter = { panic: jest.fn(), warn: jest.fn(), panicOnBuild: jest.fn() };
    (onPreInit as (args: unknown) => void)({ reporter });
    const past = claimEnds(site.claims.launch)! < new Date().toISOString().slice(0, 10);
    expect(reporter.warn.mock.calls).toEqual(
      past ? [[expect.stringContaining(`claims.launch is "${site.claims.launch}", which ended on`)]] : [],
    );
    expect([...reporter.panic.mock.calls, ...reporter.panicOnBuild.mock.calls]).toEqual([]);
  });
});
