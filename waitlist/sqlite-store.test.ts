import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { noAttribution } from "./attribution";
import { migrations, schemaVersion, StoreError, WaitlistStore } from "./sqlite-store";

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "store-"));
  file = path.join(dir, "nested", "waitlist.db");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("WaitlistStore", () => {
  it("creates its folder and file, in WAL mode with synchronous=FULL and a busy timeout", () => {
    const store = new WaitlistStore(file);
    expect(store.pragma("journal_mode")).toBe("wal");
    expect(store.pragma("synchronous")).toBe(2);
    expect(store.pragma("busy_timeout")).toBe(5000);
    expect(store.pragma("user_version")).toBe(schemaVersion);
    store.close();
  });

  it("adds an address once, by its key", () => {
    const store = new WaitlistStore(file);
    const at = new Date("2025-06-01T10:00:00Z");
    expect(store.add({ email: "Ada@Example.com", emailKey: "ada@example.com", source: "start", at })).toEqual({
      added: true,
      createdAt: "2025-06-01T10:00:00.000Z",
    });
    expect(store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "develop" })).toMatchObject({
      added: false,
    });
    expect(store.all()).toEqual([
      expect.objectContaining({ email: "Ada@Example.com", emailKey: "ada@example.com", source: "start" }),
    ]);
    // The repeat was a write too (counted), so a listed address takes as long to answer as a new one.
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT repeat_signups AS n FROM signups").get()).toEqual({ n: 1 });
    db.close();
    store.close();
  });

  it("keeps every signup across a restart", () => {
    const first = new WaitlistStore(file);
    first.add({
      email: "a@example.com",
      emailKey: "a@example.com",
      source: "start",
      at: new Date("2025-06-01T10:00:00Z"),
    });
    first.close();
    const second = new WaitlistStore(file);
    expect(second.all()).toEqual([
      {
        id: 1,
        email: "a@example.com",
        emailKey: "a@example.com",
        createdAt: "2025-06-01T10:00:00.000Z",
        source: "start",
        confirmationSentAt: null,
        confirmationFailedAt: null,
        confirmationError: null,
        ...noAttribution,
      },
    ]);
    expect(second.integrityCheck()).toBe("ok");
    second.close();
  });

  it("migrates a store written by the first version without losing rows; its rows are owed a confirmation", () => {
    const oldFile = path.join(dir, "v1.db");
    const old = new Database(oldFile);
    old.exec(migrations[0]!);
    old.pragma("user_version = 1");
    old
      .prepare("INSERT INTO signups (email, email_key, created_at, source) VALUES (?, ?, ?, ?)")
      .run("old@example.com", "old@example.com", "2025-06-01T00:00:00.000Z", "start");
    old.close();
    const store = new WaitlistStore(oldFile);
    expect(store.pragma("user_version")).toBe(schemaVersion);
    expect(store.all()).toEqual([
      {
        id: 1,
        email: "old@example.com",
        emailKey: "old@example.com",
        createdAt: "2025-06-01T00:00:00.000Z",
        source: "start",
        confirmationSentAt: null,
        confirmationFailedAt: null,
        confirmationError: null,
        ...noAttribution,
      },
    ]);
    expect(store.pendingConfirmations()).toEqual([
      { email: "old@example.com", emailKey: "old@example.com", createdAt: "2025-06-01T00:00:00.000Z" },
    ]);
    store.close();
  });

  it("migrates a store written by version 3 with its rows, confirmations and repeats intact", () => {
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
    const store = new WaitlistStore(oldFile);
    expect(store.pragma("user_version")).toBe(schemaVersion);
    expect(store.all()).toEqual([
      expect.objectContaining({ email: "v3@example.com", confirmationSentAt: "2026-01-01T00:00:01.000Z" }),
    ]);
    expect(store.confirmationCounts()).toEqual({ sent: 1, pending: 0, failed: 0 });
    expect(store.departures()).toBe(0);
    store.close();
    const db = new Database(oldFile, { readonly: true });
    expect(db.prepare("SELECT repeat_signups AS n FROM signups").get()).toEqual({ n: 2 });
    db.close();
  });

  it("migrates a store written by version 4 in place: its rows kept, with empty attribution", () => {
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
    const store = new WaitlistStore(oldFile);
    expect(store.pragma("user_version")).toBe(schemaVersion);
    expect(store.all()).toEqual([
      {
        id: 1,
        email: "v4@example.com",
        emailKey: "v4@example.com",
        createdAt: "2026-11-01T00:00:00.000Z",
        source: "develop",
        confirmationSentAt: "2026-11-01T00:00:02.000Z",
        confirmationFailedAt: null,
        confirmationError: null,
        ...noAttribution,
      },
    ]);
    expect(store.departures()).toBe(1);
    expect(store.leaveSecret(() => "a-new-one")).toBe("kept-secret".padEnd(32, "-"));
    store.close();
  });

  it("makes the leave links' secret once and keeps it across restarts and in a copy of the file", () => {
    const first = new WaitlistStore(file);
    let made = 0;
    const make = () => `secret-${++made}`.padEnd(32, "x");
    const secret = first.leaveSecret(make);
    expect(first.leaveSecret(make)).toBe(secret);
    first.close();
    const copy = path.join(dir, "copy.db");
    const source = new Database(file);
    source.exec(`VACUUM INTO '${copy}'`);
    source.close();
    for (const reopened of [new WaitlistStore(file), new WaitlistStore(copy)]) {
      expect(reopened.leaveSecret(make)).toBe(secret);
      reopened.close();
    }
    expect(secret).toBe("secret-1".padEnd(32, "x"));
  });

  it("removes every record of an address, counts the departure without the address, and leaves no trace in the files", () => {
    const store = new WaitlistStore(file);
    const at = new Date("2026-02-01T09:00:00Z");
    store.add({ email: "Leaving.Person@example.com", emailKey: "leaving.person@example.com", source: "start", at });
    store.add({ email: "stays@example.com", emailKey: "stays@example.com", source: "start", at });
    expect(store.remove("leaving.person@example.com", "link")).toEqual({
      email: "Leaving.Person@example.com",
      createdAt: "2026-02-01T09:00:00.000Z",
    });
    expect(store.remove("leaving.person@example.com", "link")).toBeUndefined();
    expect(store.all().map((signup) => signup.email)).toEqual(["stays@example.com"]);
    expect(store.pendingConfirmations().map((owed) => owed.email)).toEqual(["stays@example.com"]);
    expect(store.claimConfirmation("leaving.person@example.com")).toBe(false);
    expect(store.departures()).toBe(1);
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
    store.close();
  });

  it("lets one sender at a time claim a confirmation, and none after it was sent", () => {
    const store = new WaitlistStore(file);
    store.add({ email: "a@example.com", emailKey: "a@example.com", source: "start" });
    const now = new Date("2025-06-01T12:00:00Z");
    expect(store.claimConfirmation("a@example.com", { now, leaseMs: 60_000 })).toBe(true);
    expect(store.claimConfirmation("a@example.com", { now })).toBe(false);
    // A sender that died keeps its claim only until the lease runs out.
    expect(store.claimConfirmation("a@example.com", { now: new Date(now.getTime() + 61_000) })).toBe(true);
    store.releaseConfirmation("a@example.com", "connection refused", now);
    expect(store.claimConfirmation("a@example.com", { now })).toBe(true);
    store.markConfirmationSent("a@example.com", now);
    expect(store.claimConfirmation("a@example.com", { now: new Date(now.getTime() + 600_000) })).toBe(false);
    expect(store.pendingConfirmations()).toEqual([]);
    expect(store.all()[0]!.confirmationSentAt).toBe("2025-06-01T12:00:00.000Z");
    store.close();
  });

  it("offers an owed confirmation again once its lease has run out or its retry is due, never before", () => {
    const store = new WaitlistStore(file);
    const now = new Date("2025-06-01T12:00:00Z");
    const later = (ms: number) => new Date(now.getTime() + ms);
    store.add({ email: "a@example.com", emailKey: "a@example.com", source: "start", at: now });
    store.add({ email: "b@example.com", emailKey: "b@example.com", source: "start", at: now });
    const due = (at: Date) => store.dueConfirmations(at).map((owed) => owed.emailKey);
    expect(due(now)).toEqual(["a@example.com", "b@example.com"]);
    // a's sender dies holding it: not due until the lease has passed.
    expect(store.claimConfirmation("a@example.com", { now, leaseMs: 2_000 })).toBe(true);
    expect(due(later(1_000))).toEqual(["b@example.com"]);
    expect(due(later(2_001))).toEqual(["a@example.com", "b@example.com"]);
    // b fails for now: due at its retry time.
    expect(store.claimConfirmation("b@example.com", { now })).toBe(true);
    store.releaseConfirmation("b@example.com", "421 try later", later(30_000));
    expect(due(later(29_999))).toEqual(["a@example.com"]);
    expect(due(later(30_000))).toEqual(["a@example.com", "b@example.com"]);
    expect(store.confirmationCounts()).toEqual({ sent: 0, pending: 2, failed: 0 });
    store.close();
  });

  it("keeps an address refused for good out of every retry, with its error", () => {
    const store = new WaitlistStore(file);
    const now = new Date("2025-06-01T12:00:00Z");
    store.add({ email: "x@example.com", emailKey: "x@example.com", source: "start", at: now });
    expect(store.claimConfirmation("x@example.com", { now })).toBe(true);
    store.failConfirmation("x@example.com", "550 5.1.1 no such user", now);
    expect(store.claimConfirmation("x@example.com", { now: new Date(now.getTime() + 3_600_000) })).toBe(false);
    expect(store.dueConfirmations(new Date(now.getTime() + 3_600_000))).toEqual([]);
    expect(store.pendingConfirmations()).toEqual([]);
    expect(store.confirmationCounts()).toEqual({ sent: 0, pending: 0, failed: 1 });
    expect(store.failedConfirmations()).toEqual([
      { email: "x@example.com", failedAt: "2025-06-01T12:00:00.000Z", error: "550 5.1.1 no such user" },
    ]);
    store.close();
  });

  it("refuses a store written by a newer version instead of guessing", () => {
    const newer = new Database(file.replace("nested/", ""));
    newer.pragma(`user_version = ${schemaVersion + 1}`);
    newer.close();
    expect(() => new WaitlistStore(file.replace("nested/", ""))).toThrow(
      new StoreError(
        `${file.replace("nested/", "")} was written by a newer version (schema ${schemaVersion + 1}, this one knows ${schemaVersion}); update the site before using it.`,
      ),
    );
  });

  it("says what to do when asked to read a store that does not exist", () => {
    expect(() => WaitlistStore.openExisting(file)).toThrow(
      /No waitlist store at .*waitlist\.db\. Signups are stored there once the site runs \(npm start\)/,
    );
  });
});
