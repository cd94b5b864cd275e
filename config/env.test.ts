import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import {
  ConfigError,
  configurationRows,
  netlifyHostingProvider,
  placeholderController,
  placeholderVerificationToken,
  publicSiteReason,
  readEnv,
  retiredVariablesSet,
  serverConfig,
  siteSettings,
  waitlistConfig,
  type EnvSource,
} from "./env";

const root = path.resolve(__dirname, "..");

/** The message readEnv gives for `source`, or undefined when it takes it. */
function problem(source: EnvSource): string | undefined {
  try {
    readEnv(source);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
}

describe("readEnv", () => {
  it("gives every default on an empty environment, and takes an empty value as not set", () => {
    for (const source of [{}, { SITE_URL: " ", PORT: "", TRUST_PROXY: "  " }]) {
      const env = readEnv(source);
      expect(env.SITE_URL).toBe("https://jointandem.app");
      expect(env.CONTACT_EMAIL).toBe("hello@jointandem.app");
      expect(env.TIKTOK_SITE_VERIFICATION).toBe(placeholderVerificationToken);
      expect(env.PORT).toBe(9000);
      expect(env.HOST).toBe("127.0.0.1");
      expect(env.TRUST_PROXY).toBe(0);
      expect(env.WAITLIST_DB).toBe(path.join(root, "data/waitlist.db"));
      expect(env.OUTBOX_DIR).toBe(path.join(root, "data/outbox"));
      expect(env.AFTER_BUILD_SKIP).toEqual([]);
      expect(env.WAITLIST_SECRET).toBeUndefined();
    }
  });

  it("takes good values, trimmed, and drops SITE_URL's trailing slashes", () => {
    const env = readEnv({
      SITE_URL: " https://example.org// ",
      PORT: " 0 ",
      WAITLIST_RATE_LIMIT: "1000000",
      AFTER_BUILD_SKIP: "robots, precompress,",
      SMTP_URL: "smtp://127.0.0.1:2525",
    });
    expect(env.SITE_URL).toBe("https://example.org");
    expect(env.PORT).toBe(0);
    expect(env.WAITLIST_RATE_LIMIT).toBe(1_000_000);
    expect(env.AFTER_BUILD_SKIP).toEqual(["robots", "precompress"]);
    expect(env.SMTP_URL).toBe("smtp://127.0.0.1:2525");
  });

  it.each([
    ["PORT", "ninety", 'PORT must be a whole number from 0 to 65535 (got "ninety").'],
    ["PORT", "65536", 'PORT must be a whole number from 0 to 65535 (got "65536").'],
    ["PORT", "-1", 'PORT must be a whole number from 0 to 65535 (got "-1").'],
    ["WAITLIST_RATE_LIMIT", "0", 'WAITLIST_RATE_LIMIT must be a whole number from 1 to 1000000 (got "0").'],
    [
      "WAITLIST_LINK_RATE_LIMIT",
      "1.5",
      'WAITLIST_LINK_RATE_LIMIT must be a whole number from 1 to 1000000 (got "1.5").',
    ],
    [
      "CONFIRMATION_LEASE_SECONDS",
      "3601",
      'CONFIRMATION_LEASE_SECONDS must be a whole number from 1 to 3600 (got "3601").',
    ],
    [
      "CONFIRMATION_SWEEP_SECONDS",
      "1e3",
      'CONFIRMATION_SWEEP_SECONDS must be a whole number from 1 to 3600 (got "1e3").',
    ],
    [
      "TRUST_PROXY",
      "true",
      'TRUST_PROXY must be the number of your proxies in front of the server, from 0 to 10 (got "true"); behind one proxy: TRUST_PROXY=1.',
    ],
    [
      "SITE_URL",
      "https://example.org/shop",
      'SITE_URL must be the site\'s origin, such as https://jointandem.app (no path) (got "https://example.org/shop").',
    ],
    [
      "SITE_URL",
      "example.org",
      'SITE_URL must be the site\'s origin, such as https://jointandem.app (no path) (got "example.org").',
    ],
    ["CONTACT_EMAIL", "hello", 'CONTACT_EMAIL must be an e-mail address (got "hello").'],
    ...["javascript:alert(1)", "ftp://app.example.org/", 'https://app.example.org/"><b>x</b>', "app.example.org"].map(
      (value) => [
        "LAUNCH_URL",
        value,
        `LAUNCH_URL must be the address of the launched product's way in, such as https://app.jointandem.app/start (http or https) (got ${JSON.stringify(value)}).`,
      ],
    ),
    [
      "TIKTOK_SITE_VERIFICATION",
      'x"><script>',
      "TIKTOK_SITE_VERIFICATION must be the token from the developer portal (letters, digits, '.', '-' and '_') (got \"x\\\"><script>\").",
    ],
    [
      "CONTROLLER_NAME",
      "Tandem <script>",
      'CONTROLLER_NAME must be the legal name of the company or person that runs the site (one line, up to 200 characters, no < > { }) (got "Tandem <script>").',
    ],
    [
      "CONTROLLER_ADDRESS",
      "Example Street 1\n10115 Berlin",
      'CONTROLLER_ADDRESS must be a postal address on one line, its parts separated by commas (up to 300 characters, no < > { }) (got "Example Street 1\\n10115 Berlin").',
    ],
    [
      "NETLIFY_API_URL",
      "ftp://example.org",
      'NETLIFY_API_URL must be an http:// or https:// URL (got "ftp://example.org").',
    ],
    ["URL", "not a url", 'URL must be an http:// or https:// URL (got "not a url").'],
  ])("refuses %s=%j in one line that names it", (name, value, message) => {
    expect(problem({ [name]: value })).toBe(message);
    // What was given is quoted as a JSON string, so a line break in it cannot break the line.
    expect(message).not.toContain("\n");
  });

  it.each([
    [
      "SMTP_URL",
      "http://user:hunter2@mail.example.com",
      "SMTP_URL must be a URL like smtps://user:password@smtp.example.com:465 (got 36 characters).",
    ],
    [
      "WAITLIST_SECRET",
      "hunter2",
      "WAITLIST_SECRET must be at least 32 characters (got 7 characters); make one with: ",
    ],
  ])("refuses a bad %s without repeating the secret it holds", (name, value, start) => {
    const message = problem({ [name]: value })!;
    expect(message.startsWith(start)).toBe(true);
    expect(message).not.toContain("hunter2");
    expect(message).not.toContain("\n");
  });

  describe("the mail providers' webhook settings", () => {
    it.each([
      // Each passed the earlier schema, and made every request of the route answer 500.
      ["whsec_AAAAAAAAAAAAAAAA=A", "an = inside the base64"],
      ["whsec_AAAAAAAAAAAAAAAAA", "base64 cut short"],
      ["whsec_AAAAAAAAAAAAAAAA", "a key of 12 bytes, shorter than any Svix makes"],
    ])("refuses RESEND_WEBHOOK_SECRET=%s (%s) at start, in one line that names it", (value) => {
      expect(problem({ RESEND_WEBHOOK_SECRET: value })).toBe(
        "RESEND_WEBHOOK_SECRET must be the webhook's signing secret from Resend: whsec_ and its key of 24 to 64 bytes in base64 (got 24 characters); copy it again from the webhook's page in Resend.".replace(
          "24 characters",
          `${value.length} characters`,
        ),
      );
    });

    it("takes a signing secret as Resend makes it", () => {
      const secret = `whsec_${Buffer.alloc(24, 7).toString("base64")}`;
      expect(readEnv({ RESEND_WEBHOOK_SECRET: secret }).RESEND_WEBHOOK_SECRET).toBe(secret);
    });

    it.each([
      ["a:b", "a password of one character"],
      ["postmark:s3cret-pass", "a password shorter than 24 characters"],
      ["postmark:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "a password of one character repeated"],
      ["postmark:0123012301230123012301230123", "a password of four characters repeated"],
      [":Wq3v9Zk2LrT8xNp4YbF6hJd1", "no user"],
    ])("refuses POSTMARK_WEBHOOK_AUTH=%s (%s), without repeating it", (value) => {
      const message = problem({ POSTMARK_WEBHOOK_AUTH: value })!;
      expect(message).toMatch(
        /^POSTMARK_WEBHOOK_AUTH must be user:password, the password at least 24 characters of at least 10 different ones, random \(got \d+ characters\); make a password with: node -e /,
      );
      expect(message).not.toContain(value);
      expect(message).not.toContain("\n");
    });

    it("takes a user and a random password of 24 characters", () => {
      const auth = "postmark:Wq3v9Zk2LrT8xNp4YbF6hJd1";
      expect(readEnv({ POSTMARK_WEBHOOK_AUTH: auth }).POSTMARK_WEBHOOK_AUTH).toBe(auth);
    });
  });

  it("names the first bad variable when there are several", () => {
    expect(problem({ PORT: "x", TRUST_PROXY: "x" })).toMatch(/^PORT must be/);
  });
});

describe("a build for a public site", () => {
  it.each([
    ["no SITE_URL (npm install && npm start on a fresh machine)", {}],
    ["SITE_URL at localhost", { SITE_URL: "http://localhost:9000" }],
    ["SITE_URL at 127.0.0.1", { SITE_URL: "http://127.0.0.1:9404" }],
    ["SITE_URL at another loopback address", { SITE_URL: "http://127.1.2.3" }],
    ["SITE_URL at ::1", { SITE_URL: "http://[::1]:8000" }],
    ["SITE_URL under .localhost", { SITE_URL: "https://tandem.localhost" }],
    ["a Netlify deploy preview", { CONTEXT: "deploy-preview", NETLIFY: "true" }],
  ])("is not one with %s", (_name, source) => {
    expect(publicSiteReason(readEnv(source), source)).toBeUndefined();
  });

  it.each([
    ["a Netlify production deploy", { CONTEXT: "production" }, "a Netlify production deploy (CONTEXT=production)"],
    [
      "SITE_URL at a public address",
      { SITE_URL: "https://jointandem.app" },
      "SITE_URL is https://jointandem.app, not a local address",
    ],
    [
      "SITE_URL at a name that merely starts like a local one",
      { SITE_URL: "http://localhost.example.org" },
      "SITE_URL is http://localhost.example.org, not a local address",
    ],
  ])("is one with %s, and says why", (_name, source, reason) => {
    expect(publicSiteReason(readEnv(source), source)).toBe(reason);
  });
});

describe("npm start's site address", () => {
  it("is SITE_URL when it is set, none when not (npm start then links to its own address): never the default", () => {
    for (const source of [{}, { SITE_URL: "  " }]) {
      expect(serverConfig(readEnv(source), source).siteUrl).toBeUndefined();
    }
    const set = { SITE_URL: "https://example.org/" };
    expect(serverConfig(readEnv(set), set).siteUrl).toBe("https://example.org");
    // A setting SITE_URL's default names is set.
    const production = { SITE_URL: "https://jointandem.app" };
    expect(serverConfig(readEnv(production), production).siteUrl).toBe("https://jointandem.app");
  });

  it("leaves the build, the functions and the founders' commands the default, as before", () => {
    expect(siteSettings(readEnv({})).siteUrl).toBe("https://jointandem.app");
    expect(waitlistConfig(readEnv({})).siteUrl).toBe("https://jointandem.app");
  });
});

describe("the hosting provider the Privacy Policy names", () => {
  it("is HOSTING_PROVIDER, else Netlify on a Netlify build, else a placeholder that says what to set", () => {
    expect(siteSettings(readEnv({ HOSTING_PROVIDER: "Hetzner Online GmbH (Germany)" })).hostingProvider).toBe(
      "Hetzner Online GmbH (Germany)",
    );
    expect(siteSettings(readEnv({ NETLIFY: "true" })).hostingProvider).toBe(netlifyHostingProvider);
    expect(netlifyHostingProvider).toBe("Netlify, Inc. (United States)");
    expect(siteSettings(readEnv({})).hostingProvider).toMatch(/set HOSTING_PROVIDER/);
    expect(siteSettings(readEnv({})).controllerName).toBe(placeholderController.name);
  });

  it("refuses a value that is not one line of plain text", () => {
    expect(problem({ HOSTING_PROVIDER: "Host <b>" })).toMatch(/^HOSTING_PROVIDER must be /);
  });
});

describe("WAITLIST_LEAVE_RATE_LIMIT, the old name of WAITLIST_LINK_RATE_LIMIT", () => {
  const warnings: { message: string; type?: string; code?: string }[] = [];
  beforeEach(() => {
    warnings.length = 0;
    jest.spyOn(process, "emitWarning").mockImplementation(((
      message: string,
      options?: { type?: string; code?: string },
    ) => {
      warnings.push({ message, type: options?.type, code: options?.code });
    }) as typeof process.emitWarning);
  });
  afterEach(() => jest.restoreAllMocks());

  it("still sets the limit when the new name is not set, and says once per process to use the new one", () => {
    expect(readEnv({ WAITLIST_LEAVE_RATE_LIMIT: "7" }).WAITLIST_LINK_RATE_LIMIT).toBe(7);
    expect(readEnv({ WAITLIST_LEAVE_RATE_LIMIT: "8" }).WAITLIST_LINK_RATE_LIMIT).toBe(8);
    expect(warnings).toEqual([
      {
        message:
          "WAITLIST_LEAVE_RATE_LIMIT is now called WAITLIST_LINK_RATE_LIMIT; the old name still works, but set the new one.",
        type: "DeprecationWarning",
        code: "WAITLIST_LEAVE_RATE_LIMIT",
      },
    ]);
  });

  it("gives way to the new name when both are set", () => {
    expect(readEnv({ WAITLIST_LEAVE_RATE_LIMIT: "7", WAITLIST_LINK_RATE_LIMIT: "9" }).WAITLIST_LINK_RATE_LIMIT).toBe(9);
    expect(readEnv({}).WAITLIST_LINK_RATE_LIMIT).toBe(60);
  });

  it("is named in the message when its value is bad", () => {
    expect(problem({ WAITLIST_LEAVE_RATE_LIMIT: "lots" })).toBe(
      'WAITLIST_LEAVE_RATE_LIMIT must be a whole number from 1 to 1000000 (got "lots").',
    );
  });
});

describe("a variable read no more (issue 61)", () => {
  const mailchimp = "Intuit Inc. (Mailchimp, United States)";

  it("is read by nothing: LAUNCH_MAIL_TOOL no longer names the launch mail tool in the Privacy Policy", () => {
    expect(siteSettings(readEnv({ LAUNCH_MAIL_TOOL: mailchimp }))).toEqual(siteSettings(readEnv({})));
    expect(configurationRows.map((row) => row.name)).not.toContain("LAUNCH_MAIL_TOOL");
  });

  it("is told, when set, where its value goes now, so the build stops rather than drop the tool from the page", () => {
    expect(retiredVariablesSet({})).toEqual([]);
    expect(retiredVariablesSet({ LAUNCH_MAIL_TOOL: "  " })).toEqual([]);
    expect(retiredVariablesSet({ LAUNCH_MAIL_TOOL: ` ${mailchimp} ` })).toEqual([
      `LAUNCH_MAIL_TOOL is set (to "${mailchimp}"), but nothing reads it any more: the Privacy Policy names the launch mail tool in its own frontmatter, so that naming it is a dated change of the policy. Write it there (content/legal/privacy-policy.mdx, the line "launchMailTool: ${mailchimp}" above "fingerprint:"), with a dated entry under "updates" saying so (npm run check:content -- --fix writes it), and unset LAUNCH_MAIL_TOOL wherever the site is built.`,
    ]);
  });
});

describe("the configuration table of docs/configuration.md", () => {
  it("lists every variable of the schema, in its order, with its default and use", () => {
    const doc = readFileSync(path.join(root, "docs/configuration.md"), "utf8");
    const section = doc.slice(doc.indexOf("| Variable"));
    const rows = section
      .slice(0, section.indexOf("\n\n"))
      .split("\n")
      .filter((line) => line.startsWith("| `"))
      .map((line) => {
        const [name, defaultText, usedFor] = line
          .slice(1, -1)
          .split(/(?<!\\)\|/)
          .map((cell) => cell.trim().replace(/\\\|/g, "|"));
        return { name: name!.replace(/`/g, ""), defaultText, usedFor };
      });
    expect(rows).toEqual(configurationRows);
  });
});

describe("a bad value at an entry point", () => {
  const run = promisify(execFile);
  // Each test starts a process that compiles TypeScript as it starts (tsx): seconds on a busy machine, not Jest's 5.
  const startsTsx = 30_000;

  it.each([
    ["the build (gatsby-config.ts)", "gatsby-config.ts"],
    ["the CLI", "cli/main.ts"],
  ])(
    "stops %s with the one line",
    async (_what, file) => {
      const failure = await run(process.execPath, ["--import", "tsx", path.join(root, file), "count"], {
        cwd: root,
        env: { ...process.env, SITE_URL: "jointandem.app" },
      }).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failure).toBeDefined();
      expect(failure!.code).toBeGreaterThan(0);
      expect(failure!.stderr.trim()).toBe(
        'SITE_URL must be the site\'s origin, such as https://jointandem.app (no path) (got "jointandem.app").',
      );
    },
    startsTsx,
  );
});
