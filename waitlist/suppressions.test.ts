import { createConfirmations } from "./mail/confirmations";
import type { Mailer } from "./mail/mailer";
import { mailboxCounters } from "./mail/mailbox";
import { suppressionRetentionMs } from "./signup-life/rules";
import { SqliteStore } from "./stores/sqlite-store";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fingerprintKeyOf, keyedDigest } from "./fingerprints";
import { leaverDigest } from "./leavers";
import { suppressedUntil, suppressionFingerprint } from "./suppressions";
import { testSite } from "../test/support/site-settings";

const secret = "a-secret-of-at-least-32-characters";

describe("a mailbox's suppression fingerprint", () => {
  it("is one per mailbox, however the address is spelled, keyed, and names no address", () => {
    const own = suppressionFingerprint(secret, "anna@gmail.com");
    expect(suppressionFingerprint(secret, "a.n.n.a+news@googlemail.com")).toBe(own);
    expect(suppressionFingerprint(secret, "anna2@gmail.com")).not.toBe(own);
    expect(suppressionFingerprint(`${secret}-other`, "anna@gmail.com")).not.toBe(own);
    expect(own).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("the confirmation sender and a suppressed mailbox", () => {
  const t0 = new Date("2026-11-28T10:00:00Z");

  it("sends nothing to any spelling of it until its time ends, marks it failed (not capped), then mails a new signup", async () => {
    const store = new SqliteStore(":memory:");
    const sent: string[] = [];
    const mailer: Mailer = { destination: "test", send: async (m) => void sent.push(String(m.to)), close: () => {} };
    let now = t0;
    const logs: string[] = [];
    const confirmations = createConfirmations({
      ...testSite,
      ...{ store, mailer, linkSecret: secret, clock: () => now, log: (line: string) => logs.push(line) },
    });
    const until = new Date(t0.getTime() + suppressionRetentionMs);
    await store.suppress(suppressionFingerprint(secret, "grumpy@example.com"), until, "complaint");

    const { createdAt } = await store.add({
      email: "Grumpy+2@example.com",
      emailKey: "grumpy+2@example.com",
      source: "start",
      at: t0,
    });
    await confirmations.sendSoon({
      email: "Grumpy+2@example.com",
      emailKey: "grumpy+2@example.com",
      createdAt,
      askedSince: createdAt,
    });
    expect(sent).toEqual([]);
    const [signup] = await store.all();
    expect(signup).toMatchObject({
      state: "refused",
      confirmationError: `not sent: mail to this mailbox bounced or was marked as spam; held until ${until.toISOString().slice(0, 10)}`,
    });
    expect(logs.join("\n")).not.toMatch(/grumpy/i);
    // Its mailbox's day was not spent on it: this count is the day's first.
    const { mailbox } = mailboxCounters("grumpy+2@example.com", secret);
    expect(await store.countMailboxMail(mailbox, "2026-11-28")).toBe(1);

    now = new Date(until.getTime() + 1);
    expect(await suppressedUntil(store, secret, "grumpy@example.com", now)).toBeUndefined();
    await store.remove("grumpy+2@example.com", "link", now);
    const again = await store.add({
      email: "grumpy@example.com",
      emailKey: "grumpy@example.com",
      source: "start",
      at: now,
    });
    await confirmations.sendSoon({
      email: "grumpy@example.com",
      emailKey: "grumpy@example.com",
      createdAt: again.createdAt,
      askedSince: again.createdAt,
    });
    expect(sent).toEqual(["grumpy@example.com"]);
    await store.close();
  });
});

describe("a rotation of WAITLIST_SECRET", () => {
  const at = new Date("2026-11-28T10:00:00Z");
  const until = new Date(at.getTime() + suppressionRetentionMs);
  const rotated = "another-secret-of-at-least-32-characters";

  it("forgets no suppression nor leaver: both are keyed with the store's own key, made once, and those made before it are kept", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "rotation-"));
    const file = path.join(dir, "waitlist.db");
    try {
      const before = new SqliteStore(file);
      // Made as they were before the store kept a key of its own: under the links' secret of the day.
      await before.suppress(suppressionFingerprint(secret, "grumpy@example.com"), until, "complaint");
      const leftBefore = keyedDigest(secret, "leaver", "gone@example.com");
      // The site starts with this version: the store makes its key from the links' secret of today, and keeps it.
      expect(await suppressedUntil(before, secret, "grumpy+1@example.com", at)).toBe(until.toISOString());
      await before.close();

      const after = new SqliteStore(file);
      expect(await suppressedUntil(after, rotated, "grumpy+2@example.com", at)).toBe(until.toISOString());
      // A leaver's digest kept before is matched under it as one made now.
      expect(leaverDigest(await fingerprintKeyOf(after, rotated), "gone@example.com")).toBe(leftBefore);
      await after.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
