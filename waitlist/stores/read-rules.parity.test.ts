import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { Pool } from "pg";
import { startLocalBlobs, type LocalBlobs } from "../../test/support/blobs";
import { patience } from "../../test/support/patience";
import { suitePostgres } from "../../test/support/postgres";
import { expired, invitesByCode, isDue, isMember, keepsLeaverDigest, owes, pastItsWave } from "../signup-life/rules";
import { pastUndeliverable } from "../signup-life/rules";
import * as life from "../signup-life/signup-life";
import { letInMailStates, signupStates, type SignupRecord } from "../signup-life/types";
import { blobsStore, blobsLayout } from "./blobs-store";
import { PostgresStore } from "./postgres-store";
import { SqliteStore } from "./sqlite-store";
import type { FullStore } from "./store";

/*
 * signup-life's read rules (rules.ts) are said again where a store must find what they find by an index: SQL's WHERE
 * clauses (sql-store.ts) and the Blobs store's notes and invite keys. Generated lists of records, any combination of
 * their fields, go into each store as its own storage holds them; each store's answer to each read must be the rule's:
 * what is due and owed (the sweep), what has expired (the retention, at a whole hour: the Blobs store reads the
 * asked/ notes of the hours gone by), who is past their wave (the retention after a wave: Blobs reads its ledger), how
 * many invites count for each inviter (a link's page), who is undeliverable past the days after the bounce (Blobs
 * reads its ledger again), and whose departure keeps a digest (the launch tool's). A restricted record, drawn among
 * the rest, is due, expired, past its wave or its bounce and counted by none.
 */

const postgres = suitePostgres();
const now = new Date("2026-11-01T12:00:00.000Z");
const minutes = (n: number) => new Date(now.getTime() + n * 60_000).toISOString();
const codeOf = (n: number) => `Code${String(n).padStart(8, "0")}`;

/**
 * A list of records, every field a rule reads drawn freely; invite codes only for members, as confirming gives, and
 * an invitedBy only of one listed before (a code is kept only once its signup confirmed), a member's or not.
 */
const lists = fc
  .array(
    fc.record({
      state: fc.constantFrom(...signupStates),
      confirmationNextAt: fc.option(fc.integer({ min: -2, max: 2 }).map(minutes), { nil: null }),
      confirmationClaimedUntil: fc.option(fc.integer({ min: -2, max: 2 }).map(minutes), { nil: null }),
      optInSince: fc.option(fc.integer({ min: -200, max: 0 }).map(minutes), { nil: null }),
      askedAt: fc.option(fc.integer({ min: -200, max: 0 }).map(minutes), { nil: null }),
      mailboxDigest: fc.option(fc.constantFrom("m1", "m2", "m3"), { nil: null }),
      invitedBy: fc.option(fc.integer({ min: 0, max: 4 }).map(codeOf), { nil: null }),
      hasCode: fc.boolean(),
      restrictedAt: fc.option(fc.constant(minutes(-10)), { nil: null, freq: 3 }),
      confirmationFailedAt: fc.option(fc.integer({ min: -300, max: 0 }).map(minutes), { nil: null }),
      letIn: fc.option(
        fc.record({ at: fc.integer({ min: -300, max: 0 }), mail: fc.constantFrom(...letInMailStates) }),
        {
          nil: null,
        },
      ),
    }),
    { maxLength: 10 },
  )
  .map((drawn) =>
    drawn.map(({ hasCode, letIn, ...fields }, n): SignupRecord => {
      const email = `p${n}@example.com`;
      const record = life.add({ email, emailKey: email, source: "start" }, new Date(minutes(-1000 + n)), {
        inviterKnown: true,
      });
      const member = isMember(fields);
      return {
        ...record,
        ...fields,
        confirmedAt: member ? minutes(-500) : null,
        inviteCode: member && hasCode ? codeOf(n) : null,
        invitedBy: fields.invitedBy && Number(fields.invitedBy.slice(4)) < n ? fields.invitedBy : null,
        // Waves let in members only.
        ...(member && letIn ? { wave: 1, letInAt: minutes(letIn.at), letInMail: letIn.mail } : {}),
      };
    }),
  );
/** The retention's cut-off, at a whole hour. */
const cutoffs = fc.constantFrom(-3, -2, -1, 0).map((hours) => new Date(now.getTime() + hours * 3_600_000));

/** What each store answers of a list, and what the rules say it should. */
async function answers(store: FullStore, records: SignupRecord[], before: Date) {
  const keys = (list: { emailKey: string }[]) => list.map((one) => one.emailKey);
  const invites = invitesByCode(records);
  const members = records.filter((one) => one.inviteCode);
  const got = {
    due: keys(await store.dueConfirmations(now, 1000)),
    owed: keys(await store.pendingConfirmations()),
    expired: keys(await store.expiredUnconfirmed(before, 1000)),
    invites: await Promise.all(members.map(async (one) => (await store.lookup(one.emailKey))?.confirmedInvites)),
  };
  const byOptIn = (list: SignupRecord[]) =>
    [...list].sort((a, b) => a.optInSince!.localeCompare(b.optInSince!) || a.createdAt.localeCompare(b.createdAt));
  const wanted = {
    due: keys(records.filter((one) => isDue(one, now))),
    owed: keys(records.filter(owes)),
    expired: keys(byOptIn(records.filter((one) => expired(one, before)))),
    invites: members.map((one) => invites.get(one.inviteCode!) ?? 0),
  };
  // Who is past their wave (as a set: those let in at once come in either order), each removed and counted so.
  const past = await store.pastItsWave(before, 1000);
  const removed = await store.removeAfterWave(past, now);
  // Then who is undeliverable since before the cut-off (issue 67), each removed, counted among those who left.
  const bounced = await store.undeliverableBefore(before, 1000);
  const ended = await store.removeUndeliverable(bounced, now);
  Object.assign(got, { past: keys(past).sort(), removed: removed.length, ...(await store.departureCounts()) });
  Object.assign(got, { bounced: keys(bounced).sort(), ended: ended.length });
  const pastNow = records.filter((one) => pastItsWave(one, before));
  const bouncedNow = records.filter((one) => !pastNow.includes(one) && pastUndeliverable(one, before));
  Object.assign(wanted, { past: keys(pastNow).sort(), removed: pastNow.length, left: bouncedNow.length, pruned: 0 });
  Object.assign(wanted, { afterWave: pastNow.length, bounced: keys(bouncedNow).sort(), ended: bouncedNow.length });
  // Whose departure keeps a digest of who left: one whose wave went to the launch tool.
  const rest = records.filter((one) => !pastNow.includes(one) && !bouncedNow.includes(one));
  for (const [n, one] of rest.entries()) await store.remove(one.emailKey, "link", now, `digest-${n}`);
  got.owed.push(...(await store.leaverDigests(new Date(0))).map((one) => one.digest).sort());
  wanted.owed.push(...rest.flatMap((one, n) => (keepsLeaverDigest(one) ? [`digest-${n}`] : [])).sort());
  return { got, wanted };
}

/** A record as an SQL row: every column the rules read, and what a row must have. */
const rowColumns = [
  ...["email", "email_key", "created_at", "source", "state", "confirmation_next_at", "confirmation_claimed_until"],
  ...["opt_in_since", "asked_at", "confirmed_at", "invite_code", "invited_by", "mailbox_digest", "restricted_at"],
  ...["wave", "let_in_at", "let_in_mail", "confirmation_failed_at"],
];
const rowValues = (one: SignupRecord) => [
  ...[one.email, one.emailKey, one.createdAt, one.source, one.state, one.confirmationNextAt],
  ...[one.confirmationClaimedUntil, one.optInSince, one.askedAt, one.confirmedAt, one.inviteCode, one.invitedBy],
  ...[one.mailboxDigest, one.restrictedAt, one.wave, one.letInAt, one.letInMail, one.confirmationFailedAt],
];
const insertSql = (placeholder: (n: number) => string) =>
  `INSERT INTO signups (${rowColumns.join(", ")}) VALUES (${rowColumns.map((_, n) => placeholder(n + 1)).join(", ")})`;

const runs = { numRuns: 60 };
/** A guard against a hang: a run of the property is many stores' worth of work. */
const guard = patience(60_000);

describe("signup-life's read rules, said again by each store, give the same answers", () => {
  it(
    "on SQLite",
    async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), "parity-"));
      try {
        let run = 0;
        await fc.assert(
          fc.asyncProperty(lists, cutoffs, async (records, before) => {
            const file = path.join(dir, `${run++}.db`);
            await new SqliteStore(file).close();
            const db = new Database(file);
            const insert = db.prepare(insertSql(() => "?"));
            for (const one of records) insert.run(...rowValues(one));
            db.close();
            const store = new SqliteStore(file);
            const { got, wanted } = await answers(store, records, before);
            await store.close();
            expect(got).toEqual(wanted);
          }),
          runs,
        );
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    guard,
  );

  it(
    "on Postgres",
    async () => {
      const pool = new Pool({ connectionString: await postgres.createMigratedDatabase() });
      const store = new PostgresStore(pool, { endPool: false });
      try {
        await fc.assert(
          fc.asyncProperty(lists, cutoffs, async (records, before) => {
            await pool.query("TRUNCATE signups, departures");
            for (const one of records)
              await pool.query(
                insertSql((n) => `$${n}`),
                rowValues(one),
              );
            const { got, wanted } = await answers(store, records, before);
            expect(got).toEqual(wanted);
          }),
          runs,
        );
      } finally {
        await pool.end();
      }
    },
    guard,
  );

  describe("on Netlify Blobs", () => {
    let blobs: LocalBlobs;
    beforeAll(async () => {
      blobs = await startLocalBlobs();
    });
    afterAll(async () => blobs.stop());

    it(
      "with the notes and invite keys the store files",
      async () => {
        await fc.assert(
          fc.asyncProperty(lists, cutoffs, async (records, before) => {
            const client = blobs.store();
            await Promise.all((await client.list()).blobs.map(({ key }) => client.delete(key)));
            const store = blobsStore(blobs.store(), { clock: () => now });
            // Each record under its <k>, with the notes the store writes as it asks and as it changes a record, filed
            // (its ledger row, its invite keys) in the order they came: an inviter confirmed before its invitees.
            for (const one of records) {
              const k = await store.key(one.emailKey);
              await client.setJSON(blobsLayout.record(k), { ...one, chunk: null, leaving: null });
              await client.set(blobsLayout.pending(k, now), "");
              if (one.optInSince) await client.set(blobsLayout.asked(one.optInSince.slice(0, 13), k), "");
              await store.fold();
            }
            const { got, wanted } = await answers(blobsStore(blobs.store(), { clock: () => now }), records, before);
            expect(got).toEqual(wanted);
          }),
          { numRuns: 25 },
        );
      },
      guard,
    );
  });
});
