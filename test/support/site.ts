import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ParsedMail } from "mailparser";
import { noAttribution, type Attribution } from "../../waitlist/attribution";
import { outboxFiles, outboxMailTo } from "./outbox";
import { spawnServe } from "./process";
import { atServer } from "./smtp";
import { sqliteSignups } from "./sqlite";
import type { Signup } from "../../waitlist/signup-life/types";

const root = path.resolve(__dirname, "../..");

/** The built site as `npm run serve` serves it, with a store and an outbox of its own (startSite). */
export interface Site {
  url: string;
  dbFile: string;
  outboxDir: string;
  /** Every stored signup, oldest first, as the store gives it (what `export` writes). */
  signups(): Promise<Signup[]>;
  /** The address and source of every stored signup, oldest first. */
  rows(): Promise<{ email: string; source: string }[]>;
  /** When `email` confirmed its spot: null before, undefined when it is not listed. */
  confirmedAt(email: string): Promise<string | null | undefined>;
  /** Where one stored signup came from (waitlist/attribution.ts); undefined when the address is not stored. */
  attributionOf(email: string): Promise<Attribution | undefined>;
  /** The .eml files written so far. */
  outbox(): string[];
  /** The message in the outbox addressed to `email`, once it is there. */
  mailTo(email: string): Promise<ParsedMail>;
  /** `link` from an e-mail (which points at SITE_URL) pointed at this server. */
  local(link: string): string;
  stop(): Promise<void>;
}

/**
 * The project's own `npm run serve` (server/serve.ts) over the production
 * build in public/, on an ephemeral port, with a temporary store and outbox:
 * what the browser tests visit. What it stored is read through the store's
 * API, as the founders' commands read it.
 */
export async function startSite(): Promise<Site> {
  if (!existsSync(path.join(root, "public", "index.html"))) {
    throw new Error("public/index.html is missing: run `npm run build` before the browser tests.");
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "e2e-"));
  const dbFile = path.join(dir, "waitlist.db");
  const outboxDir = path.join(dir, "outbox");
  const server = await spawnServe({
    WAITLIST_DB: dbFile,
    OUTBOX_DIR: outboxDir,
    WAITLIST_RATE_LIMIT: "10000",
    SMTP_URL: "",
  });
  const signups = () => sqliteSignups(dbFile);
  const signupOf = async (email: string) => (await signups()).find((signup) => signup.email === email);
  return {
    url: server.url,
    dbFile,
    outboxDir,
    signups,
    rows: async () => (await signups()).map(({ email, source }) => ({ email, source })),
    confirmedAt: async (email) => (await signupOf(email))?.confirmedAt,
    async attributionOf(email) {
      const signup = await signupOf(email);
      if (!signup) return undefined;
      const keys = Object.keys(noAttribution) as (keyof Attribution)[];
      return Object.fromEntries(keys.map((key) => [key, signup[key]])) as Attribution;
    },
    outbox: () => outboxFiles(outboxDir),
    mailTo: (email) => outboxMailTo(outboxDir, email),
    local: (link) => atServer(server.url, link),
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
