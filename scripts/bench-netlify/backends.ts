// Where the functions keep the list in a run of npm run bench:netlify: Netlify Blobs (the local server), able to count
// its operations and to be filled fast, straight into the server's files, to a given size or with a day of signups.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { blobsStore, blobsLayout, keyOf, rowsPerChunk } from "../../waitlist/stores/blobs-store";
import type { FullStore } from "../../waitlist/stores/store";
import type { startLocalBlobs } from "../../test/support/blobs";
import type { startNetlifyApi } from "../../test/support/netlify-api";

/** Where the functions keep the list in this run, and what the bench needs of it. */
export interface Backend {
  store: FullStore;
  /** Blobs operations on the store so far. */
  ops(): Promise<number>;
  /** Fills the list to `n` listed addresses, mailed and confirmed long ago, straight into the store's storage. */
  seedTo(n: number): Promise<void>;
  /** Adds a day of signups (seedSignupDay): `count` of them on the UTC day from `dayStart`. */
  seedDay(count: number, dayStart: number): Promise<void>;
  /** The environment of the founders' commands on this store. */
  foundersEnv: NodeJS.ProcessEnv;
  foundersArgs: string[];
  stop(): Promise<void>;
}

/** The Blobs store of a site without Netlify Database, reached by the founders through the API stand-in. */
export async function blobsBackend(
  blobs: Awaited<ReturnType<typeof startLocalBlobs>>,
  api: Awaited<ReturnType<typeof startNetlifyApi>>,
  start: number,
): Promise<Backend> {
  const store = blobsStore(blobs.store());
  // The store's own format, taken from a record and a ledger blob it wrote: the seed copies it.
  await store.add({ email: "probe@example.com", emailKey: "probe@example.com", source: "netlify" });
  await store.markConfirmationSent("probe@example.com", new Date());
  await store.fold();
  // Records are filed under a keyed digest of the address (records.ts): the seed files them under the store's key.
  const recordSecret = (await blobs.store().get("settings/record-secret", { type: "text" }))!;
  const keyed = (emailKey: string) => keyOf(recordSecret, emailKey);
  const probeFile = findFile(blobs.directory, `records/${keyed("probe@example.com")}`);
  const storeDir = probeFile.slice(0, -`records/${keyed("probe@example.com")}`.length);
  const template = JSON.parse(readFileSync(probeFile, "utf8")) as Record<string, unknown>;
  const rowTemplate = readdirSync(path.join(storeDir, "ledger"))
    .map(
      (chunk) =>
        (
          JSON.parse(readFileSync(path.join(storeDir, "ledger", chunk), "utf8")) as {
            rows?: Record<string, Record<string, unknown>>;
          }
        ).rows?.[keyed("probe@example.com")],
    )
    .find((row) => row !== undefined);
  if (!rowTemplate) {
    const ledger = readdirSync(path.join(storeDir, "ledger")).map((chunk) =>
      readFileSync(path.join(storeDir, "ledger", chunk), "utf8").slice(0, 200),
    );
    throw new Error(`The probe's ledger row is missing: ledger/ holds ${JSON.stringify(ledger)}`);
  }
  await store.remove("probe@example.com", "operator", new Date());
  rmSync(path.join(storeDir, "departures"), { recursive: true, force: true });
  rmSync(path.join(storeDir, "ledger"), { recursive: true, force: true });
  await store.fold();

  let seeded = 0;
  let chunks = 0;
  /** Writes records and their ledger rows, a ledger blob per thousand, each record's fields over the template's. */
  function write(records: readonly Record<string, unknown>[]) {
    mkdirSync(path.join(storeDir, "records"), { recursive: true });
    mkdirSync(path.join(storeDir, "ledger"), { recursive: true });
    for (let from = 0; from < records.length; from += rowsPerChunk) {
      const chunk = String(++chunks).padStart(6, "0");
      const rows: Record<string, unknown> = {};
      for (const fields of records.slice(from, from + rowsPerChunk)) {
        const h = keyed(fields.emailKey as string);
        writeFileSync(path.join(storeDir, "records", h), JSON.stringify({ ...template, ...fields, chunk }));
        rows[h] = { ...rowTemplate, ...fields };
      }
      writeFileSync(path.join(storeDir, "ledger", chunk), JSON.stringify({ rows }));
    }
  }
  /** Adds listed addresses, mailed and confirmed long ago. */
  function seedTo(n: number) {
    const records: Record<string, unknown>[] = [];
    for (let i = seeded; i < n; i++) {
      const email = `listed${i}@example.com`;
      const at = new Date(start - 30 * 86_400_000 + i * 1000).toISOString();
      records.push({
        email,
        emailKey: email,
        createdAt: at,
        state: "confirmed",
        confirmationSentAt: at,
        optInSince: at,
        confirmedAt: at,
      });
    }
    write(records);
    seeded = Math.max(seeded, n);
  }
  /**
   * A day of `count` signups, spread over the UTC day from `dayStart`, each mailed as it signed up, 3 in 5 confirming
   * 10 minutes later and 2 in 5 never: the records and ledger rows, and the per-day blobs the store keeps for them in
   * its layout of today (blobs/layout.ts): the asked/<hour>/<h> note of each, and its mailbox's count of
   * the day's mail, in the blob the store files it in (layout.mailboxCounts: 256 a day at most). Nothing owed: no pending/
   * note. Change this with the layout.
   */
  function seedDay(count: number, dayStart: number) {
    const records: Record<string, unknown>[] = [];
    const day = new Date(dayStart).toISOString().slice(0, 10);
    const mailboxCounts = new Map<string, Record<string, number>>();
    for (let i = 0; i < count; i++) {
      const email = `day${i}@example.com`;
      const at = new Date(dayStart + Math.floor((i * 86_400_000) / count)).toISOString();
      const confirmedAt = i % 5 < 3 ? new Date(Date.parse(at) + 600_000).toISOString() : null;
      records.push({
        email,
        emailKey: email,
        createdAt: at,
        confirmationSentAt: at,
        optInSince: at,
        askedAt: at,
        state: confirmedAt ? "confirmed" : "sent",
        confirmedAt,
      });
      const h = keyed(email);
      const asked = path.join(storeDir, "asked", at.slice(0, 13));
      mkdirSync(asked, { recursive: true });
      writeFileSync(path.join(asked, h), "");
      const counter = keyed(`mailbox:${email}`).slice(0, 32);
      const key = blobsLayout.mailboxCounts(day, counter);
      const counts = mailboxCounts.get(key) ?? {};
      counts[counter] = (counts[counter] ?? 0) + 1;
      mailboxCounts.set(key, counts);
    }
    mkdirSync(path.join(storeDir, "mailbox", day), { recursive: true });
    for (const [key, counts] of mailboxCounts) writeFileSync(path.join(storeDir, key), JSON.stringify(counts));
    write(records);
  }

  return {
    store,
    async ops() {
      await blobs.settled();
      return blobs.operations.length;
    },
    seedTo: async (n) => seedTo(n),
    seedDay: async (count, dayStart) => seedDay(count, dayStart),
    foundersEnv: { NETLIFY_API_TOKEN: blobs.token, NETLIFY_SITE_ID: blobs.siteID, NETLIFY_API_URL: api.url },
    foundersArgs: ["--netlify"],
    stop: async () => {},
  };
}

/** The file under `root` whose path ends with `suffix`. */
function findFile(root: string, suffix: string): string {
  for (const name of readdirSync(root)) {
    const file = path.join(root, name);
    if (statSync(file).isDirectory()) {
      try {
        return findFile(file, suffix);
      } catch {
        continue;
      }
    }
    if (file.endsWith(suffix)) return file;
  }
  throw new Error(`No ${suffix} under ${root}`);
}
