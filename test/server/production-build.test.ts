import { site } from "../../config/site";
import { onPreBuild, onPreInit } from "../../gatsby-node";
import { claimEnds } from "../../scripts/legal-content/claims";
import { projectFolders } from "../../config/folders";
import * as policies from "../../waitlist/policies";
import { readPolicySource } from "../../waitlist/policies";
import { netlifyHostingProvider } from "../../config/variables";

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

/** The names the Privacy Policy's frontmatter records (issue 67): those of `complete`, and Amazon SES. */
const recorded = {
  mailProvider: "Amazon Web Services, Inc. (Amazon SES, United States)",
  controller: `${complete.CONTROLLER_NAME}, ${complete.CONTROLLER_ADDRESS}`,
  hostingProvider: complete.HOSTING_PROVIDER,
};

/** The Privacy Policy as the build reads it, its frontmatter recording `names` (null: none, as the repository's). */
const policyNaming = (names: Partial<Record<keyof typeof recorded, string | null>>) => {
  const source = readPolicySource(projectFolders.legal, site.legalPages.privacyPolicy.slug)!;
  const lines = Object.entries({ ...recorded, ...names }).flatMap(([field, name]) =>
    name ? [`${field}: ${name}`] : [],
  );
  return source.replace(/^fingerprint:/m, `${lines.join("\n")}\nfingerprint:`);
};

function preBuild(env: Record<string, string>, names: Parameters<typeof policyNaming>[0] = {}) {
  // Stands for the file legal staff edit: which names it records is theirs to write, not this test's.
  jest.spyOn(policies, "readPolicySource").mockReturnValue(policyNaming(names));
  const saved = { ...process.env };
  const reporter = { panic: jest.fn(), warn: jest.fn(), panicOnBuild: jest.fn() };
  for (const name of ["CONTEXT", "SITE_URL", "NETLIFY", "NETLIFY_LOCAL", "MAIL_PROVIDER", ...Object.keys(complete)]) {
    delete process.env[name];
  }
  Object.assign(process.env, env);
  try {
    (onPreBuild as (args: unknown) => void)({ reporter });
  } finally {
    process.env = saved;
    jest.restoreAllMocks();
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
    const netlify = { hostingProvider: netlifyHostingProvider };
    expect(preBuild({ ...rest, CONTEXT: "production", NETLIFY: "true" }, netlify)).toEqual({
      panics: [],
      warnings: [],
    });
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

describe("the mail provider the Privacy Policy names (issue 67)", () => {
  const production = { ...complete, CONTEXT: "production", NETLIFY: "true" };

  it("must be named for a public site, as the one MAIL_PROVIDER says the site uses", () => {
    expect(preBuild({ ...production, MAIL_PROVIDER: "ses" })).toEqual({ panics: [], warnings: [] });
    expect(
      preBuild({ ...production, MAIL_PROVIDER: "smtp" }, { mailProvider: "Example Mail GmbH (Germany)" }).panics,
    ).toEqual([]);
    expect(preBuild({ ...production, MAIL_PROVIDER: "resend" }).panics).toEqual([
      expect.stringMatching(
        /^The Privacy Policy names Amazon Web Services, Inc\. \(Amazon SES, United States\) as the mail provider, but MAIL_PROVIDER is resend \(Resend\)\. .*\(CONTEXT=production\)/s,
      ),
    ]);
    expect(preBuild(production, { mailProvider: null }).panics).toEqual([
      expect.stringMatching(/^The Privacy Policy names no mail provider, but the site's e-mails go through one /),
    ]);
  });

  it("is a warning on a local build", () => {
    const { panics, warnings } = preBuild({ ...complete, MAIL_PROVIDER: "postmark" });
    expect(panics).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(/^The Privacy Policy names Amazon Web Services, .*MAIL_PROVIDER is postmark/),
    ]);
  });
});

describe("the controller and the host the Privacy Policy's frontmatter records (issue 67)", () => {
  const production = { ...complete, CONTEXT: "production", NETLIFY: "true" };

  it("must be the ones the public site's settings name, so that a change of either is a dated change", () => {
    const moved = { ...production, CONTROLLER_ADDRESS: "Other Street 2, 10115 Berlin, Germany" };
    expect(preBuild(moved).panics).toEqual([
      expect.stringMatching(
        /^The Privacy Policy shows Tandem Labs GmbH, Other Street 2, 10115 Berlin, Germany \(CONTROLLER_NAME and CONTROLLER_ADDRESS\), but its frontmatter's "controller" records Tandem Labs GmbH, Example Street 1, 10115 Berlin, Germany\. .*\(CONTEXT=production\)/s,
      ),
    ]);
    expect(preBuild(production, { hostingProvider: null }).panics).toEqual([
      expect.stringMatching(
        /^The Privacy Policy shows Hetzner Online GmbH \(Germany\) \(HOSTING_PROVIDER .*"hostingProvider" records none\./,
      ),
    ]);
  });

  it("is not asked of a local build, which shows placeholders", () => {
    expect(preBuild({ ...complete, CONTROLLER_NAME: "Someone Else Ltd" }).panics).toEqual([]);
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
