import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startLocalBlobs, type LocalBlobs } from "../support/blobs";
import { blobsStore } from "../../waitlist/stores/blobs-store";
import { until } from "../support/until";
import { form, signupBody } from "../support/harness";
import { confirmLinks, leaveLinks, startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { patience } from "../support/patience";

/*
 * The functions as Netlify deploys them, not as the other tests import them: bundled by Netlify's own bundler with
 * netlify.toml's settings, then each loaded in a Node process of its own with require(esm) off, as AWS Lambda (and
 * netlify-cli, which runs functions as Lambda does) loads them. A function bundled as CommonJS that requires an ESM
 * package answers every request with 500 there, however well its source passes the tests that import it.
 */

jest.setTimeout(patience(120_000));

const run = promisify(execFile);
const root = path.resolve(__dirname, "../..");
const site = "https://jointandem.app";
const lambdaFlags = ["--no-experimental-require-module", "--no-experimental-detect-module"];

interface Bundle {
  name: string;
  bundler: string;
  runtime: string;
  module: string;
}

let out: string;
let bundles: Map<string, Bundle>;
let blobs: LocalBlobs;
let smtp: TestSmtpServer;

beforeAll(async () => {
  out = mkdtempSync(path.join(os.tmpdir(), "netlify-bundles-"));
  const { stdout } = await run(process.execPath, [path.join(root, "scripts/bundle-functions.mjs"), out], {
    cwd: root,
    maxBuffer: 1 << 20,
  });
  bundles = new Map((JSON.parse(stdout) as Bundle[]).map((bundle) => [bundle.name, bundle]));
  [blobs, smtp] = await Promise.all([startLocalBlobs(), startSmtpServer()]);
});

afterAll(async () => {
  await Promise.all([blobs?.stop(), smtp?.close()]);
  rmSync(out, { recursive: true, force: true });
});

/** One request to one bundled function, in a function instance of its own. */
async function invoke(name: string, method: string, url: string, body = "", headers: Record<string, string> = {}) {
  const bundle = bundles.get(name)!;
  const { stdout } = await run(
    process.execPath,
    [
      ...lambdaFlags,
      path.join(root, "test/support/invoke-bundle.mjs"),
      bundle.module,
      method,
      url,
      body,
      JSON.stringify(headers),
    ],
    {
      // The function's working directory on Lambda is its bundle; its settings come from the environment.
      cwd: path.dirname(path.dirname(path.dirname(bundle.module))),
      env: {
        PATH: process.env.PATH,
        NETLIFY_BLOBS_CONTEXT: blobs.context(),
        SMTP_URL: smtp.url,
        URL: "https://jointandem.netlify.app",
      },
    },
  );
  return JSON.parse(stdout) as { status: number; body: string };
}

const formPost = { "content-type": "application/x-www-form-urlencoded", accept: "text/html", origin: site };

it("bundles every function in netlify/functions as an ES module for Node 24", () => {
  expect([...bundles.keys()].sort()).toEqual([
    "waitlist-confirm",
    "waitlist-daily",
    "waitlist-drain",
    "waitlist-leave",
    "waitlist-mail-events",
    "waitlist-signup",
    "waitlist-sweep",
  ]);
  for (const bundle of bundles.values()) {
    expect(bundle.module).toMatch(/\.mjs$/);
    expect(bundle.runtime).toBe("nodejs24.x");
  }
});

describe("on Netlify Blobs", () => {
  const email = "grace@example.com";

  it("takes a signup, mails its confirmation, confirms it and lets it leave, each function loaded as Lambda loads it", async () => {
    const signup = await invoke("waitlist-signup", "POST", `${site}/`, signupBody(email), {
      "content-type": "application/x-www-form-urlencoded",
      accept: "text/plain",
      origin: site,
    });
    expect(signup).toEqual({
      status: 200,
      body: "Welcome to the waitlist! Check your email for a confirmation message.\n",
    });
    expect(await blobsStore(blobs.store()).lookup(email)).toMatchObject({ email });

    await until(() => smtp.deliveries.some((one) => one.envelope.to.includes(email)), 10_000);
    const delivery = smtp.deliveries.find((one) => one.envelope.to.includes(email));
    expect(delivery!.envelope.to).toEqual([email]);
    const confirmLink = confirmLinks(delivery!.mail).text;
    const confirmPage = await invoke("waitlist-confirm", "GET", confirmLink.replace(/^https?:\/\/[^/]+/, site));
    expect(confirmPage.status).toBe(200);
    expect(confirmPage.body).toContain("Confirm my spot");
    const token = new URL(confirmLink).searchParams.get("token")!;
    const confirmed = await invoke("waitlist-confirm", "POST", `${site}/waitlist/confirm`, form({ token }), formPost);
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toContain("Your spot is confirmed.");

    const leaveLink = leaveLinks(delivery!.mail).text.replace(/^https?:\/\/[^/]+/, site);
    const leavePage = await invoke("waitlist-leave", "GET", leaveLink);
    expect(leavePage.status).toBe(200);
    const left = await invoke("waitlist-leave", "POST", leaveLink, form({ "List-Unsubscribe": "One-Click" }), {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(left).toEqual({ status: 200, body: "You're off the list. We won't e-mail you again.\n" });
  });

  it.each(["waitlist-sweep", "waitlist-daily"])("runs the scheduled %s", async (name) => {
    expect(await invoke(name, "POST", `${site}/.netlify/functions/${name}`)).toEqual({ status: 204, body: "" });
  });
});
