import { z } from "zod";
import { mailVariables } from "./mail-variables";
import {
  commaList,
  httpUrl,
  isAddress,
  isUrl,
  minSecretLength,
  oneLine,
  projectPath,
  text,
  wholeNumber,
  type Variable,
} from "./variable-kinds";

export type { Variable } from "./variable-kinds";

/*
 * Every environment variable, once: its schema (zod), what a good value
 * looks like, its default and what it is for. env.ts reads them;
 * docs/configuration.md shows the same rows (config/env.test.ts keeps the
 * two in step).
 */

export const placeholderVerificationToken = "set-TIKTOK_SITE_VERIFICATION-at-build-time";
/**
 * What the policies name as the controller until CONTROLLER_NAME and CONTROLLER_ADDRESS are set, and as the host until
 * HOSTING_PROVIDER is (a build for a public site refuses them: env.ts, publicSiteReason).
 */
export const placeholderController = {
  name: "[the company that runs this site: set CONTROLLER_NAME]",
  address: "[its postal address: set CONTROLLER_ADDRESS]",
} as const;
export const placeholderHostingProvider = "[the company that hosts this site: set HOSTING_PROVIDER]";
/** The host a build on Netlify names when HOSTING_PROVIDER is not set. */
export const netlifyHostingProvider = "Netlify, Inc. (United States)";
/** What a missing build setting does, as the table says it. */
const refusedWhenPublic =
  "Without it a local build warns; a build for a public site (a Netlify production deploy, or a `SITE_URL` that is not local) fails.";
/** The two settings the founders' e-mails carry as their postal address (cli/sender.ts); a confirmation has none. */
const announced =
  " In the founders' shell too: the e-mails of `let-in` and `announce-policy-change` carry the name and the address as their sender's postal address (a confirmation does not), and neither command mails anyone through `SMTP_URL` without them.";
const defaultContactEmail = "hello@jointandem.app";

/**
 * Variables read no more, and where their value goes now, said to whoever still sets one: the build refuses them
 * (gatsby-node.ts), since going on would leave out of a page what the variable used to put there.
 */
export const retiredVariables: Readonly<Record<string, (value: string) => string>> = {
  // The Privacy Policy names the launch mail tool in its own frontmatter, where naming it is a dated change (issue 61).
  LAUNCH_MAIL_TOOL: (value) =>
    `LAUNCH_MAIL_TOOL is set (to ${JSON.stringify(value)}), but nothing reads it any more: the Privacy Policy names the launch mail tool in its own frontmatter, so that naming it is a dated change of the policy. Write it there (content/legal/privacy-policy.mdx, the line "launchMailTool: ${value}" above "fingerprint:"), with a dated entry under "updates" saying so (npm run check:content -- --fix writes it), and unset LAUNCH_MAIL_TOOL wherever the site is built.`,
};

/** Variables renamed: the old name is read while the new one is not set, with one deprecation warning. */
export const renamedVariables = {
  WAITLIST_LEAVE_RATE_LIMIT: "WAITLIST_LINK_RATE_LIMIT",
  MAIL_SENDS_AT_ONCE: "MAIL_CONNECTIONS",
} as const;

export const variables = {
  SITE_URL: {
    schema: text
      .regex(/^https?:\/\/[^/?#\s]+\/*$/)
      .optional()
      .transform((value) => (value ?? "https://jointandem.app").replace(/\/+$/, "")),
    expected: "the site's origin, such as https://jointandem.app (no path)",
    defaultText: "`https://jointandem.app`",
    usedFor:
      "Build time: canonical URLs, the sitemap and robots.txt. At run time: links in e-mails and which Origin counts as this site. Set it to the production origin. Without it, `npm start` links to the address it listens on (`http://localhost:9000`), and says so as it starts. Set to an address that is not local (not `localhost`, `127.0.0.1`, `::1` or `*.localhost`), it makes the build one for a public site, which refuses the placeholders below.",
  },
  CONTACT_EMAIL: {
    schema: text
      .refine(isAddress)
      .optional()
      .transform((value) => value ?? defaultContactEmail),
    expected: "an e-mail address",
    defaultText: `\`${defaultContactEmail}\``,
    usedFor: "Build time and run time: the contact address in the footer, the policies, the pages and the e-mails.",
  },
  TIKTOK_SITE_VERIFICATION: {
    schema: text
      .regex(/^[\w.-]{1,200}$/)
      .optional()
      .transform((value) => value ?? placeholderVerificationToken),
    expected: "the token from the developer portal (letters, digits, '.', '-' and '_')",
    defaultText: "a placeholder",
    usedFor: `Build time: the developer portal's site verification token, in a \`<meta name="tiktok-developers-site-verification">\` tag on the two legal pages only. ${refusedWhenPublic}`,
  },
  CONTROLLER_NAME: {
    schema: oneLine(200).transform((value) => value ?? placeholderController.name),
    expected: "the legal name of the company or person that runs the site (one line, up to 200 characters, no < > { })",
    defaultText: "a placeholder",
    usedFor: `Build time: who the Privacy Policy names as the controller of the personal information, such as \`Tandem Labs GmbH\`. ${refusedWhenPublic}${announced}`,
  },
  CONTROLLER_ADDRESS: {
    schema: oneLine(300).transform((value) => value ?? placeholderController.address),
    expected: "a postal address on one line, its parts separated by commas (up to 300 characters, no < > { })",
    defaultText: "a placeholder",
    usedFor: `Build time: the controller's postal address in the Privacy Policy, such as \`Example Street 1, 10115 Berlin, Germany\`. ${refusedWhenPublic}${announced}`,
  },
  HOSTING_PROVIDER: {
    schema: oneLine(200),
    expected:
      "the hosting provider's legal name and country, such as Hetzner Online GmbH (Germany) (one line, up to 200 characters, no < > { })",
    defaultText: "Netlify on Netlify; else a placeholder",
    usedFor: `Build time: the hosting provider the Privacy Policy names, which serves the site and stores the waitlist, such as \`Hetzner Online GmbH (Germany)\`. A build on Netlify names Netlify unless this says otherwise; elsewhere: ${refusedWhenPublic}`,
  },
  LAUNCH_URL: {
    schema: httpUrl.refine((value) => !/[\s<>"]/.test(value)).optional(),
    expected: "the address of the launched product's way in, such as https://app.jointandem.app/start (http or https)",
    defaultText: "not set",
    usedFor:
      "In the founders' shell: where the \"You're in\" e-mail of `let-in` sends each person it lets in. `let-in` mails nobody without it.",
  },
  NETLIFY: {
    schema: text.optional(),
    expected: "any text: set is true",
    defaultText: "set by Netlify",
    usedFor:
      "Build time: a build on Netlify (`npm run build:netlify` sets it too): Gatsby's Netlify adapter runs, with the site's headers, and the Privacy Policy names Netlify as the host unless `HOSTING_PROVIDER` is set.",
  },
  NETLIFY_LOCAL: {
    schema: text.optional(),
    expected: "any text: set is true",
    defaultText: "set by netlify-cli",
    usedFor: "Build time: netlify-cli's own build (`netlify serve`); the Netlify adapter runs as on Netlify.",
  },
  CONTEXT: {
    schema: text.optional(),
    expected: "Netlify's build context, such as production",
    defaultText: "set by Netlify",
    usedFor:
      "Build time: `production` makes the build one for a public site: a missing `TIKTOK_SITE_VERIFICATION`, `CONTROLLER_NAME`, `CONTROLLER_ADDRESS` or `HOSTING_PROVIDER` fails it.",
  },
  AFTER_BUILD_SKIP: {
    schema: commaList(z.string()),
    expected: "after-build step names joined by commas",
    defaultText: "not set",
    usedFor: "Build time: leaves the named steps of `after-build/steps.ts` out (`npm run bench` weighs each).",
  },
  PORT: {
    schema: wholeNumber(0, 65535, 9000),
    expected: "a whole number from 0 to 65535",
    defaultText: "`9000`",
    usedFor: "Where `npm run serve` / `npm start` listen.",
  },
  HOST: {
    schema: text.optional().transform((value) => value ?? "127.0.0.1"),
    expected: "a host name or IP address",
    defaultText: "`127.0.0.1`",
    usedFor: "The address `npm run serve` / `npm start` listen on.",
  },
  PUBLIC_DIR: {
    schema: projectPath("public"),
    expected: "a folder",
    defaultText: "`public`",
    usedFor: "The build `npm run serve` serves.",
  },
  WAITLIST_DB: {
    schema: projectPath("data/waitlist.db"),
    expected: "a file path",
    defaultText: "`data/waitlist.db`",
    usedFor: "The SQLite file of the waitlist (its folder is created).",
  },
  DATABASE_URL: {
    schema: text.refine((value) => isUrl(value, /^postgres(?:ql)?:$/)).optional(),
    expected: "a URL like postgres://user:password@db.example.com:5432/waitlist",
    secret: true,
    defaultText: "not set",
    usedFor:
      "A Postgres database for the waitlist of `npm start` and `npm run develop`, instead of `WAITLIST_DB` (migrated on start). See [The Postgres store](database.md).",
  },
  WAITLIST_RATE_LIMIT: {
    schema: wholeNumber(1, 1_000_000, 5),
    expected: "a whole number from 1 to 1000000",
    defaultText: "`5`",
    usedFor: "Signups accepted per client IP per minute; more get 429.",
  },
  WAITLIST_MAILBOX_DAILY_MAILS: {
    schema: wholeNumber(1, 1000, 3),
    expected: "a whole number from 1 to 1000",
    defaultText: "`3`",
    usedFor:
      "Confirmation e-mails one mailbox gets per UTC day at most, however its address is spelled (`+tags`, and dots at Gmail, count as one); a signup past it is stored but not mailed. See [The signup endpoint](waitlist.md#the-signup-endpoint).",
  },
  WAITLIST_SECRET: {
    schema: text.min(minSecretLength).optional(),
    expected: `at least ${minSecretLength} characters`,
    hint: `make one with: node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"`,
    secret: true,
    defaultText: "made and kept in the store",
    usedFor:
      "Encrypts the confirm and the leave link in every e-mail (AES-256-GCM, key derived with HKDF). Not set: the store makes a random one on first use and keeps it (in `WAITLIST_DB`, or in Netlify Blobs). See [Leaving the waitlist](waitlist.md#leaving-the-waitlist).",
  },
  WAITLIST_LINK_RATE_LIMIT: {
    schema: wholeNumber(1, 1_000_000, 60),
    expected: "a whole number from 1 to 1000000",
    defaultText: "`60`",
    usedFor:
      "Requests to the links in the e-mail per client IP per minute: the leave link (mail providers send their users' one-click requests from few addresses), and as many again the confirm link; more get 429. Its old name, `WAITLIST_LEAVE_RATE_LIMIT`, still works when this is not set, with a deprecation warning.",
  },
  TRUST_PROXY: {
    schema: wholeNumber(0, 10, 0),
    expected: "the number of your proxies in front of the server, from 0 to 10",
    hint: "behind one proxy: TRUST_PROXY=1.",
    defaultText: "`0`",
    usedFor:
      "How many proxies of yours stand in front of `npm start`. `1`: the client is the address your proxy saw (the last entry of `X-Forwarded-For`); whatever a client writes before it is ignored. Never `true`.",
  },
  ...mailVariables,
  NETLIFY_API_TOKEN: {
    schema: text.optional(),
    expected: "a Netlify personal access token",
    secret: true,
    defaultText: "not set",
    usedFor:
      "For `npm run waitlist -- … --netlify` on your machine: a personal access token, with which the commands reach the Netlify deployment's store through Netlify's API. The functions need none.",
  },
  SITE_ID: {
    schema: text.optional(),
    expected: "a Netlify site id",
    defaultText: "set by Netlify",
    usedFor:
      "The site's id, which Netlify sets in builds and functions; the `--netlify` commands use it when `NETLIFY_SITE_ID` is not set.",
  },
  NETLIFY_SITE_ID: {
    schema: text.optional(),
    expected: "a Netlify site id",
    defaultText: "not set",
    usedFor:
      "For `npm run waitlist -- … --netlify` on your machine: the site whose waitlist to read (_Site configuration → General → Site ID_).",
  },
  NETLIFY_API_URL: {
    schema: httpUrl.optional().transform((value) => value ?? "https://api.netlify.com/api/v1"),
    expected: "an http:// or https:// URL",
    defaultText: "Netlify's API",
    usedFor: "Points the Netlify client at another address, such as a proxy (the tests' stand-in).",
  },
  URL: {
    schema: httpUrl.optional(),
    expected: "an http:// or https:// URL",
    defaultText: "set by Netlify",
    usedFor: "The site's Netlify address, also counted as this site's origin by the functions.",
  },
  NETLIFY_BLOBS_CONTEXT: {
    schema: text.optional(),
    expected: "Netlify's Blobs context (base64 JSON)",
    defaultText: "set by Netlify",
    usedFor:
      "Where a function's Netlify Blobs store is: Netlify sets it for every function; read by `@netlify/blobs`. The tests point it at a local Blobs server.",
  },
  GITHUB_BASE_REF: {
    schema: text.optional(),
    expected: "a branch name",
    defaultText: "set by GitHub Actions",
    usedFor:
      "On a pull request, the branch it goes to: the content check holds each policy's record of changes against the merge base with it.",
  },
  GITHUB_STEP_SUMMARY: {
    schema: text.optional(),
    expected: "a file path",
    defaultText: "set by GitHub Actions",
    usedFor:
      "Where a job's summary goes: `npm run check:content` writes its problems there as Markdown, with the lines to paste in boxes, so that the pull request's page shows them (see [Editing a policy](editing-a-policy.md)).",
  },
  CHROME_PATH: {
    schema: text.optional(),
    expected: "the path of a Chromium or Chrome executable",
    defaultText: "looked for",
    usedFor:
      "The browser of the browser tests, `npm run bench` and `scripts/make-images.ts`; not set: they look for one (see [Browser tests](testing.md#browser-tests)).",
  },
  FIREFOX_PATH: {
    schema: text.optional(),
    expected: "the path of a Firefox executable",
    defaultText: "looked for",
    usedFor:
      "The Firefox of the browser tests; not set: Debian's `firefox-esr`, or a `firefox` on `PATH` (see [Browser tests](testing.md#browser-tests)).",
  },
  PATH: {
    schema: text.optional(),
    expected: "a list of folders",
    defaultText: "the system's",
    usedFor:
      "Where the browser tests look for a system Chromium or Chrome (when `CHROME_PATH` is not set), Firefox, `WebKitWebDriver` and `Xvfb`.",
  },
  CI: {
    schema: text.optional(),
    expected: "any value",
    defaultText: "set by CI services and `.ci/run`",
    usedFor:
      "Set: a browser engine the browser tests do not find fails the run; not set (a laptop), its tests are skipped with a line naming the package to install.",
  },
  GATSBY_TELEMETRY_DISABLED: {
    schema: text.optional(),
    expected: "1",
    defaultText: "set to `1` by the scripts",
    usedFor: "Keeps Gatsby from phoning home (read by Gatsby itself).",
  },
} satisfies Record<string, Variable>;
