import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { migrations, schemaVersion, StoreError, WaitlistStore } from "./store";

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
    expect(store.add({ email: "Ada@Example.com", emailKey: "ada@example.com", source: "start" })).toEqual({
      added: true,
    });
    expect(store.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "develop" })).toEqual({
      added: false,
    });
    expect(store.all()).toEqual([
      expect.objectContaining({ email: "Ada@Example.com", emailKey: "ada@example.com", source: "start" }),
    ]);
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
      },
    ]);
    expect(second.integrityCheck()).toBe("ok");
    second.close();
  });

  it("migrates a store written by the first version without losing rows", () => {
    const old = new Database(file.replace("nested/", ""));
    old.exec(migrations[0]!);
    old.pragma("user_version = 1");
    old
      .prepare("INSERT INTO signups (email, email_key, created_at, source) VALUES (?, ?, ?, ?)")
      .run("old@example.com", "old@example.com", "2025-06-01T00:00:00.000Z", "start");
    old.close();
    const store = new WaitlistStore(file.replace("nested/", ""));
    expect(store.pragma("user_version")).toBe(schemaVersion);
    expect(store.all().map((row) => row.email)).toEqual(["old@example.com"]);
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
