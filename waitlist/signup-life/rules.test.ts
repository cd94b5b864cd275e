import * as rules from "./rules";
import * as life from "./signup-life";
import type { ListRow, NewSignup } from "./types";
import * as wholeList from "./whole-list";

/*
 * The rules that read a signup, each once, with fake times. read-rules.parity.test.ts (stores/) then holds the SQL
 * that says some of them again to these, on every store.
 */

const now = new Date("2025-06-01T12:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms);
const day = 86_400_000;
const added = (extra: Partial<NewSignup> = {}) =>
  life.add({ email: "ada@example.com", emailKey: "ada@example.com", source: "start", ...extra }, now, {
    inviterKnown: true,
  });
const confirmed = (record = added()) =>
  life.confirm(record, { createdAt: record.createdAt, at: now, privacyPolicy: null, inviteCode: "AdaCode12345" })!
    .record;

describe("expired", () => {
  it("expires one asked before the time that never confirmed, and removes it only as it was found", () => {
    const record = added();
    expect(rules.expired(record, now)).toBe(false);
    expect(rules.expired(record, later(1))).toBe(true);
    expect(rules.expired(added({ earlier: true }), later(100 * day))).toBe(false);
    expect(rules.expired(confirmed(), later(100 * day))).toBe(false);
    expect(rules.stillExpired(record, now.toISOString())).toBe(true);
    expect(rules.stillExpired({ ...record, optInSince: later(5).toISOString() }, now.toISOString())).toBe(false);
    expect(rules.stillExpired(confirmed(record), now.toISOString())).toBe(false);
  });

  it("keeps the Privacy Policy's periods", () => {
    expect(rules.unconfirmedRetentionMs).toBe(30 * day);
    expect(rules.leaverDigestRetentionMs).toBe(90 * day);
  });
});

describe("the retry schedule and the daily cap", () => {
  it("waits 5 s, 30 s, 2 min, 10 min, then an hour after each failure that may pass", () => {
    expect([1, 2, 3, 4, 5, 6, 50].map((attempt) => rules.retryDelayMs(attempt))).toEqual([
      5_000, 30_000, 120_000, 600_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
    expect(rules.retryDelayMs(2, [1, 2])).toBe(2);
  });

  it("sets one of a mailbox's e-mails a day apart for its own address, out of the cap, none with a cap of one", () => {
    const three = rules.mailboxCap(3);
    expect([three.setApartFor(1), three.setApartFor(2)]).toEqual([true, false]);
    // The spellings share the two that are left.
    expect([1, 2, 3].map(three.over)).toEqual([false, false, true]);
    const one = rules.mailboxCap(1);
    expect([one.keepsOwnCount, one.setApartFor(1), one.over(1), one.over(2)]).toEqual([false, false, false, true]);
  });
});

describe("who may be mailed or let in", () => {
  it("announces to a member only, and lets in a member in no wave only", () => {
    expect(rules.mayBeAnnouncedTo(added())).toBe(false);
    expect(rules.mayBeAnnouncedTo(confirmed())).toBe(true);
    expect(rules.mayBeLetIn(confirmed())).toBe(true);
    expect(rules.mayBeLetIn({ ...confirmed(), wave: 1 })).toBe(false);
    expect(rules.mayBeLetIn(added())).toBe(false);
  });
});

describe("invites that count", () => {
  const row = (mailboxDigest: string, extra: Partial<ListRow> = {}): ListRow => ({
    ...wholeList.listRowOf(confirmed(added({ mailboxDigest }))),
    inviteCode: null,
    ...extra,
  });

  it("counts an invitee once it confirmed, never of the inviter's own mailbox", () => {
    const inviter = { mailboxDigest: "m-anna" };
    const invitee = added({ invitedBy: "AnnaCode1234", mailboxDigest: "m-bob" });
    expect(rules.countsAsInvite(inviter, invitee)).toBe(false);
    expect(rules.countsAsInvite(inviter, confirmed(invitee))).toBe(true);
    expect(rules.countsAsInvite(inviter, { ...confirmed(invitee), mailboxDigest: "m-anna" })).toBe(false);
    expect(rules.countsAsInvite(inviter, { ...confirmed(invitee), invitedBy: null })).toBe(false);
  });

  it("counts one per inviter and mailbox over a whole list, the first to confirm, none of a code nobody has", () => {
    const rows = [
      row("m-anna", { inviteCode: "AnnaCode1234" }),
      row("m-bob", { invitedBy: "AnnaCode1234", confirmedAt: later(2).toISOString() }),
      row("m-bob", { invitedBy: "AnnaCode1234", confirmedAt: later(1).toISOString() }),
      row("m-anna", { invitedBy: "AnnaCode1234" }),
      row("m-carl", { invitedBy: "AnnaCode1234", state: "sent", confirmedAt: null }),
      row("m-dora", { invitedBy: "GoneCode1234" }),
    ];
    expect(rules.countedInvites(rows)).toEqual([rows[2]]);
    expect(rules.invitesByCode(rows)).toEqual(new Map([["AnnaCode1234", 1]]));
  });
});

describe("the founders' counts of a whole list", () => {
  it("counts sent, owed and refused, and gives the last error of one still failing", () => {
    const records = [
      life.sent(added(), now),
      confirmed(),
      life.release(life.claim(added(), now, 1)!, "421 first", later(1))!,
      life.release(life.claim(added(), now, 1)!, "421 later", later(2))!,
      life.fail(added(), "550 no", now)!,
      life.fail(added(), "not sent: capped", later(3), true)!,
    ];
    expect(wholeList.confirmationCounts(records)).toEqual({ sent: 2, pending: 2, failed: 2 });
    // A restricted entry is used for nothing else: in none of the counts either (issue 67, L6).
    const restricted = records.map((one) => ({ ...one, restrictedAt: later(4).toISOString() }));
    expect(wholeList.confirmationCounts([...records, ...restricted])).toEqual({ sent: 2, pending: 2, failed: 2 });
    expect(wholeList.failedConfirmations(records)).toEqual([
      { email: "ada@example.com", failedAt: now.toISOString(), error: "550 no" },
      { email: "ada@example.com", failedAt: later(3).toISOString(), error: "not sent: capped" },
    ]);
    expect(wholeList.lastConfirmationError(records)).toBe("not sent: capped");
  });
});
