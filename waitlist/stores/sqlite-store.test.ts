import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { noAttribution } from "../attribution";
import { migrations, schemaVersion } from "./sqlite-migrations";
import type { SqlDatabase } from "./sql-store";
import { SqliteStore } from "./sqlite-store";
import { describeStoreContract, type StoreUnderTest } from "./store.contract";
import { StoreError } from "./store";

const sqliteHarness = (): StoreUnderTest => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "store-contract-"));
  const file = path.join(dir, "waitlist.db");
  return {
    open: async () => new SqliteStore(file),
    reopen: async () => new SqliteStore(file),
    snapshot: async () => {
      const db = new Database(file, { readonly: true });
      try {
        const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
          name: string;
        }[];
        return Object.fromEntries(
          tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}" ORDER BY rowid`).all()]),
        );
      } finally {
        db.close();
      }
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
};
describeStoreContract("SQLite", sqliteHarness);

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "store-"));
  file = path.join(dir, "nested", "waitlist.db");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** What a row from before double opt-in holds: never confirmed, under a policy nobody recorded, never asked to. */
const unconfirmed = {
  confirmedAt: null,
  privacyPolicyAtSignup: null,
  privacyPolicyAtConfirm: null,
  optInSince: null,
  consentAtSignup: null,
  consentAtConfirm: null,
  inviteCode: null,
  invitedBy: null,
  mailboxDigest: null,
  repeatSignups: 0,
  confirmationAttempts: 0,
  announcements: [],
  // In no wave (migration 15).
  wave: null,
  letInAt: null,
  letInMail: null,
  // No objection, no restriction (migrations 16 and 19).
  attributionObjectedAt: null,
  inviteObjectedAt: null,
  rankingObjectedAt: null,
  recordsObjectedAt: null,
  restrictedAt: null,
};

describe("SqliteStore", () => {
  it("keeps a signup and its e-mail in 4 statements, a repeat in 3, a confirm in 2 and a leave in 1", async () => {
    const statements: string[] = [];
    /** A store over the file whose statements are counted: the confirm link is opened days later, in a new process. */
    const opened = () => {
      const store = new SqliteStore(file);
      const db = (store as unknown as { db: SqlDatabase }).db;
      for (const method of ["query", "deleteCounted"] as const) {
        const run = db[method].bind(db) as (...args: unknown[]) => Promise<unknown[]>;
        Object.assign(db, { [method]: (sql: string, ...rest: unknown[]) => (statements.push(sql), run(sql, ...rest)) });
      }
      return store;
    };
    const counted = async (work: () => Promise<unknown>) => {
      statements.length = 0;
      await work();
      return statements.length;
    };
    const at = new Date("2025-06-01T12:00:00Z");
    const store = opened();
    const signup = async () => {
      await store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "start", at });
      await store.claimConfirmation("ada@example.com", { now: at, leaseMs: 60_000 });
      await store.countMailboxMail("ab".repeat(16), "2025-06-01");
      await store.markConfirmationSent("ada@example.com", at);
    };
    expect(await counted(signup)).toBe(4);
    const repeat = async () => {
      await store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "start" });
      await store.askToConfirm("ada@example.com", new Date(at.getTime() + 86_400_000), { resendAfterMs: 86_400_000 });
    };
    expect(await counted(repeat)).toBe(3);
    await store.close();
    const later = opened();
    const confirmation = { createdAt: at.toISOString(), at, privacyPolicy: null };
    expect(await counted(() => later.confirm("ada@example.com", confirmation))).toBe(2);
    expect(await counted(() => later.remove("ada@example.com", "link", at))).toBe(1);
    await later.close();
  });

  it("reads what the sweep and the retention need through their partial indexes, in its own statements", async () => {
    const store = new SqliteStore(file);
    const sent: { sql: string; values: unknown[] }[] = [];
    const db = (store as unknown as { db: SqlDatabase }).db;
    const query = db.query.bind(db);
    Object.assign(db, {
      query: (sql: string, values: unknown[] = []) => (sent.push({ sql, values }), query(sql, values as never)),
    });
    await store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "start" });
    const plan = async (read: () => Promise<unknown>) => {
      sent.length = 0;
      await read();
      const { sql, values } = sent[0]!;
      const reader = new Database(file, { readonly: true });
      try {
        const bound = Object.fromEntries(values.map((value, n) => [n + 1, value]));
        const explained = reader.prepare(`EXPLAIN QUERY PLAN ${sql.replace(/\$(\d+)/g, "?$1")}`);
        return (explained.all(...(values.length > 0 ? [bound] : [])) as { detail: string }[])
          .map((row) => row.detail)
          .join("\n");
      } finally {
        reader.close();
      }
    };
    expect(await plan(() => store.dueConfirmations(new Date(), 10))).toMatch(/USING INDEX signups_owed/);
    expect(await plan(() => store.pendingConfirmations())).toMatch(/USING INDEX signups_owed/);
    expect(await plan(() => store.expiredUnconfirmed(new Date(), 10))).toMatch(/USING INDEX signups_unconfirmed/);
    await store.close();
  });

  it("creates its folder and file, in WAL mode with synchronous=FULL and a busy timeout", async () => {
    const store = new SqliteStore(file);
    expect(store.pragma("journal_mode")).toBe("wal");
    expect(store.pragma("synchronous")).toBe(2);
    expect(store.pragma("busy_timeout")).toBe(5000);
    expect(store.pragma("user_version")).toBe(schemaVersion);
    await store.close();
  });

  it("keeps its folder, file, WAL and SHM files to this user (0700, 0600) under umask 022, old files included", async () => {
    const mode = (one: string) => (statSync(one).mode & 0o777).toString(8);
    const umask = process.umask(0o022);
    try {
      const store = new SqliteStore(file);
      await store.add({ email: "a@example.com", emailKey: "a@example.com", source: "start" });
      expect([file, `${file}-wal`, `${file}-shm`].map(mode)).toEqual(["600", "600", "600"]);
      expect(mode(path.dirname(file))).toBe("700");
      await store.close();
      // A store an earlier version made readable to all is made private when it opens.
      for (const one of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(one)) chmodSync(one, 0o644);
      const again = new SqliteStore(file);
      expect([file, `${file}-wal`, `${file}-shm`].filter(existsSync).map(mode)).toEqual(
        [file, `${file}-wal`, `${file}-shm`].filter(existsSync).map(() => "600"),
      );
      await again.add({ email: "b@example.com", emailKey: "b@example.com", source: "start" });
      expect([file, `${file}-wal`, `${file}-shm`].map(mode)).toEqual(["600", "600", "600"]);
      await again.close();
    } finally {
      process.umask(umask);
    }
  });

  it("counts a repeat with a durable write of its own, so a listed address takes as long to answer as a new one", async () => {
    const store = new SqliteStore(file);
    await store.add({ email: "a@example.com", emailKey: "a@example.com", source: "start" });
    await store.add({ email: "A@example.com", emailKey: "a@example.com", source: "start" });
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT repeat_signups AS n FROM signups").get()).toEqual({ n: 1 });
    db.close();
    await store.close();
  });

  it("migrates a store written by the first version without losing rows; its rows are owed a confirmation", async () => {
    const oldFile = path.join(dir, "v1.db");
    const old = new Database(oldFile);
    old.exec(migrations[0]!);
    old.pragma("user_version = 1");
    old
      .prepare("INSERT INTO signups (email, email_key, created_at, source) VALUES (?, ?, ?, ?)")
      .run("old@example.com", "old@example.com", "2025-06-01T00:00:00.000Z", "start");
    old.close();
    const store = new SqliteStore(oldFile);
    expect(store.pragma("user_version")).toBe(schemaVersion);
    expect(await store.all()).toEqual([
      {
        email: "old@example.com",
        emailKey: "old@example.com",
        createdAt: "2025-06-01T00:00:00.000Z",
        source: "start",
        confirmationSentAt: null,
        confirmationFailedAt: null,
        confirmationError: null,
        state: "owed",
        ...noAttribution,
        ...unconfirmed,
      },
    ]);
    expect(await store.pendingConfirmations()).toEqual([
      {
        email: "old@example.com",
        emailKey: "old@example.com",
        createdAt: "2025-06-01T00:00:00.000Z",
        askedSince: null,
      },
    ]);
    await store.close();
  });

  it("migrates a store written by version 3 with its rows, confirmations and repeats intact", async () => {
    const oldFile = path.join(dir, "v3.db");
    const old = new Database(oldFile);
    for (const migration of migrations.slice(0, 3)) old.exec(migration);
    old.pragma("user_version = 3");
    old
      .prepare(
        `INSERT INTO signups (email, email_key, created_at, source, confirmation_sent_at, repeat_signups)
         VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run("v3@example.com", "v3@example.com", "2026-01-01T00:00:00.000Z", "start", "2026-01-01T00:00:01.000Z", 2);
    old.close();
    const store = new SqliteStore(oldFile);
    expect(store.pragma("user_version")).toBe(schemaVersion);
    expect(await store.all()).toEqual([
      expect.objectContaining({ email: "v3@example.com", confirmationSentAt: "2026-01-01T00:00:01.000Z" }),
    ]);
    expect(await store.confirmationCounts()).toEqual({ sent: 1, pending: 0, failed: 0 });
    expect(await store.departures()).toBe(0);
    await store.close();
    const db = new Database(oldFile, { readonly: true });
    expect(db.prepare("SELECT repeat_signups AS n FROM signups").get()).toEqual({ n: 2 });
    db.close();
  });

  it("migrates a store written by version 4 in place: its rows kept, with empty attribution", async () => {
    const oldFile = path.join(dir, "v4.db");
    const old = new Database(oldFile);
    for (const migration of migrations.slice(0, 4)) old.exec(migration);
    old.pragma("user_version = 4");
    old
      .prepare(
        "INSERT INTO signups (email, email_key, created_at, source, confirmation_sent_at) VALUES (?, ?, ?, ?, ?)",
      )
      .run("v4@example.com", "v4@example.com", "2026-11-01T00:00:00.000Z", "develop", "2026-11-01T00:00:02.000Z");
    old.prepare("INSERT INTO departures (left_at, how) VALUES (?, ?)").run("2026-11-02T00:00:00.000Z", "link");
    old.prepare("INSERT INTO settings (name, value) VALUES ('leave_secret', ?)").run("kept-secret".padEnd(32, "-"));
    old.close();
    const store = new SqliteStore(oldFile);
    expect(store.pragma("user_version")).toBe(schemaVersion);
    expect(await store.all()).toEqual([
      {
        email: "v4@example.com",
        emailKey: "v4@example.com",
        createdAt: "2026-11-01T00:00:00.000Z",
        source: "develop",
        confirmationSentAt: "2026-11-01T00:00:02.000Z",
        confirmationFailedAt: null,
        confirmationError: null,
        state: "sent",
        ...noAttribution,
        ...unconfirmed,
      },
    ]);
    expect(await store.departures()).toBe(1);
    await expect(store.secret("leave", () => "a-new-one")).resolves.toBe("kept-secret".padEnd(32, "-"));
    await store.close();
  });

  it("migrates a store written by version 5: its rows unconfirmed, its departures kept, and pruning counted", async () => {
    const oldFile = path.join(dir, "v5.db");
    const old = new Database(oldFile);
    for (const migration of migrations.slice(0, 5)) old.exec(migration);
    old.pragma("user_version = 5");
    old
      .prepare("INSERT INTO signups (email, email_key, created_at, source, utm_source) VALUES (?, ?, ?, ?, ?)")
      .run("v5@example.com", "v5@example.com", "2026-11-20T00:00:00.000Z", "start", "tiktok");
    old.prepare("INSERT INTO departures (left_at, how) VALUES (?, ?)").run("2026-11-21T00:00:00.000Z", "one-click");
    old.close();
    const store = new SqliteStore(oldFile);
    expect(await store.all()).toEqual([
      expect.objectContaining({ email: "v5@example.com", utmSource: "tiktok", ...unconfirmed }),
    ]);
    await store.add({ email: "p@example.com", emailKey: "p@example.com", source: "start" });
    await store.remove("p@example.com", "pruned", new Date());
    expect(await store.departures()).toBe(2);
    await store.close();
  });

  it("migrates a store written by version 16: each row's state read from its times, its mailbox digest kept", async () => {
    const oldFile = path.join(dir, "v16.db");
    const old = new Database(oldFile);
    for (const migration of migrations.slice(0, 16)) old.exec(migration);
    old.pragma("user_version = 16");
    const at = "2026-11-20T00:00:00.000Z";
    const insert = old.prepare(
      `INSERT INTO signups (email, email_key, created_at, source, confirmation_sent_at, confirmation_failed_at,
         confirmation_capped, confirmation_claimed_until, confirmed_at, mailbox)
       VALUES (?, ?, ?, 'start', ?, ?, ?, ?, ?, 'm')`,
    );
    // What each row's times said it was: confirmed (after it was sent), sent, capped, refused, held, owed.
    insert.run("confirmed@x.com", "confirmed@x.com", at, at, null, 0, null, at);
    insert.run("sent@x.com", "sent@x.com", at, at, null, 0, null, null);
    insert.run("capped@x.com", "capped@x.com", at, null, at, 1, null, null);
    insert.run("refused@x.com", "refused@x.com", at, null, at, 0, null, null);
    insert.run("held@x.com", "held@x.com", at, null, null, 0, at, null);
    insert.run("owed@x.com", "owed@x.com", at, null, null, 0, null, null);
    old.close();
    const store = new SqliteStore(oldFile);
    const states = Object.fromEntries((await store.all()).map((row) => [row.email.split("@")[0], row.state]));
    expect(states).toEqual({
      confirmed: "confirmed",
      sent: "sent",
      capped: "capped",
      refused: "refused",
      held: "sending",
      owed: "owed",
    });
    expect(new Set((await store.listRows()).map((row) => row.mailboxDigest))).toEqual(new Set(["m"]));
    expect(await store.confirmationCounts()).toEqual({ sent: 2, pending: 2, failed: 2 });
    await store.close();
  });

  it("keeps the leave links' secret in a copy of the file", async () => {
    const first = new SqliteStore(file);
    const secret = await first.secret("leave", () => "made-once".padEnd(32, "x"));
    await first.close();
    const copy = path.join(dir, "copy.db");
    const source = new Database(file);
    source.exec(`VACUUM INTO '${copy}'`);
    source.close();
    const reopened = new SqliteStore(copy);
    await expect(reopened.secret("leave", () => "another".padEnd(32, "x"))).resolves.toBe(secret);
    await reopened.close();
  });

  it("leaves no trace of a removed address in its files", async () => {
    const store = new SqliteStore(file);
    const at = new Date("2026-02-01T09:00:00Z");
    await store.add({
      email: "Leaving.Person@example.com",
      emailKey: "leaving.person@example.com",
      source: "start",
      at,
    });
    await store.add({ email: "stays@example.com", emailKey: "stays@example.com", source: "start", at });
    await store.remove("leaving.person@example.com", "link", at);
    const bytes = () =>
      [file, `${file}-wal`].map((name) => {
        try {
          return readFileSync(name).toString("latin1");
        } catch {
          return "";
        }
      });
    for (const content of bytes()) expect(content.toLowerCase()).not.toContain("leaving.person");
    expect(bytes()[0]).toContain("stays@example.com");
    await store.close();
  });

  it("refuses a store written by a newer version instead of guessing", () => {
    const newer = new Database(file.replace("nested/", ""));
    newer.pragma(`user_version = ${schemaVersion + 1}`);
    newer.close();
    expect(() => new SqliteStore(file.replace("nested/", ""))).toThrow(
      new StoreError(
        `${file.replace("nested/", "")} was written by a newer version (schema ${schemaVersion + 1}, this one knows ${schemaVersion}); update the site before using it.`,
      ),
    );
  });

  it("says what to do when asked to read a store that does not exist", () => {
    expect(() => SqliteStore.openExisting(file)).toThrow(
      /No waitlist store at .*waitlist\.db\. Signups are stored there once the site runs \(npm start\)/,
    );
  });
});
