import { noAttribution } from "../attribution";
import { countsAsInvite, expired, isDue, mayBeAnnouncedTo, mayBeLetIn, owedOf, owes } from "./rules";
import * as life from "./signup-life";
import type { NewSignup } from "./types";

/*
 * A signup's life, rule by rule, on one record with fake times: what each transition does and refuses. The stores'
 * contract suite (stores/store.contract.ts) then tests that every store keeps what these return.
 */

const now = new Date("2025-06-01T12:00:00Z");
const later = (ms: number) => new Date(now.getTime() + ms);
const day = 86_400_000;
const entry = (extra: Partial<NewSignup> = {}): NewSignup => ({
  email: "Ada@Example.com",
  emailKey: "ada@example.com",
  source: "start",
  ...extra,
});
const added = (extra: Partial<NewSignup> = {}, at = now) => life.add(entry(extra), at, { inviterKnown: true });
/** A signup confirmed at `now`, with its invite code. */
const member = life.confirm(added(), {
  createdAt: now.toISOString(),
  at: now,
  privacyPolicy: null,
  inviteCode: "c",
})!.record;

describe("add and repeat", () => {
  it("makes a record owed its confirmation, asked from its signup, with its attribution's fields only", () => {
    const attribution = { ...noAttribution, utmSource: "tiktok", confirmedAt: "not mine" } as typeof noAttribution;
    const record = added({ attribution, privacyPolicy: "p1", consent: "c1", mailboxDigest: "m1" });
    expect(record).toMatchObject({
      createdAt: now.toISOString(),
      optInSince: now.toISOString(),
      utmSource: "tiktok",
      confirmedAt: null,
      privacyPolicyAtSignup: "p1",
      consentAtSignup: "c1",
      mailboxDigest: "m1",
      state: "owed",
      repeatSignups: 0,
      confirmationAttempts: 0,
      announcements: [],
    });
    expect(owes(record)).toBe(true);
    expect(owedOf(record)).toEqual({
      email: "Ada@Example.com",
      emailKey: "ada@example.com",
      createdAt: now.toISOString(),
      askedSince: now.toISOString(),
    });
  });

  it("owes nothing for an import sent elsewhere, never asks one from before the confirm step", () => {
    expect(added({ confirmationSentAt: now })).toMatchObject({ state: "sent" });
    expect(owes(added({ confirmationSentAt: now }))).toBe(false);
    expect(added({ earlier: true }).optInSince).toBeNull();
  });

  it("keeps an invite code only when it is a confirmed signup's", () => {
    expect(added({ invitedBy: "AdaCode12345" }).invitedBy).toBe("AdaCode12345");
    expect(life.add(entry({ invitedBy: "NoSuchCode12" }), now, { inviterKnown: false }).invitedBy).toBeNull();
  });

  it("counts a repeat and keeps the first signup", () => {
    const record = life.repeat(life.repeat(added()));
    expect(record).toMatchObject({ repeatSignups: 2, createdAt: now.toISOString() });
  });
});

describe("claim, sent, release and fail: the confirmation e-mail", () => {
  const lease = 60_000;

  it("lets one sender at a time hold it, until its lease runs out, counting each attempt", () => {
    const held = life.claim(added(), now, lease)!;
    expect(held).toMatchObject({
      state: "sending",
      confirmationAttempts: 1,
      confirmationClaimedUntil: later(lease).toISOString(),
    });
    expect(life.claim(held, later(lease), lease)).toBeUndefined();
    expect(isDue(held, later(lease))).toBe(false);
    expect(isDue(held, later(lease + 1))).toBe(true);
    expect(life.claim(held, later(lease + 1), lease)?.confirmationAttempts).toBe(2);
  });

  it("is due again at its retry time after a failure that may pass, its error kept, cut to 500 characters", () => {
    const released = life.release(life.claim(added(), now, lease)!, "421 try later".padEnd(600, "."), later(30_000))!;
    expect(released.state).toBe("owed");
    expect(released.confirmationError).toHaveLength(500);
    expect(released.confirmationClaimedUntil).toBeNull();
    expect(isDue(released, later(29_999))).toBe(false);
    expect(isDue(released, later(30_000))).toBe(true);
  });

  it("owes nothing once sent or refused for good; a capped one is told apart", () => {
    const sent = life.sent(life.claim(added(), now, lease)!, later(1));
    expect(sent).toMatchObject({
      state: "sent",
      confirmationSentAt: later(1).toISOString(),
      confirmationClaimedUntil: null,
    });
    expect(life.claim(sent, later(day), lease)).toBeUndefined();
    const refused = life.fail(added(), "550 no such user", later(2))!;
    expect(refused).toMatchObject({ state: "refused", confirmationFailedAt: later(2).toISOString() });
    expect(life.claim(refused, later(day), lease)).toBeUndefined();
    expect(life.fail(added(), "capped", later(2), true)?.state).toBe("capped");
  });

  it("leaves alone what another sender finished: no failure or retry over a sent one, a confirmed one stays so", () => {
    const sent = life.sent(added(), later(1));
    expect(life.fail(sent, "550", later(2))).toBeUndefined();
    expect(life.release(sent, "421", later(2))).toBeUndefined();
    // Confirmed by the link of an earlier asking while this one's mail was under way.
    const held = life.claim(life.ask(sent, later(day + 1), { resendAfterMs: day })!, later(day + 1), lease)!;
    const confirmed = life.confirm(held, {
      createdAt: now.toISOString(),
      at: later(day + 2),
      privacyPolicy: null,
      inviteCode: "c",
    })!;
    expect(life.sent(confirmed.record, later(day + 3)).state).toBe("confirmed");
  });

  it("asks one never asked from when its first mail went", () => {
    expect(life.sent(added({ earlier: true }), later(5)).optInSince).toBe(later(5).toISOString());
    expect(life.sent(added(), later(5)).optInSince).toBe(now.toISOString());
  });
});

describe("ask", () => {
  const again = { resendAfterMs: day };
  const mailed = life.sent(added(), later(1_000));

  it("asks a signup from before the confirm step once, owed its e-mail again from then on", () => {
    const asked = life.ask(added({ earlier: true, confirmationSentAt: now }), later(day))!;
    // Sent from before: a founder's ask-to-confirm owes it the mail with the confirm link.
    expect(asked).toMatchObject({ state: "owed", optInSince: later(day).toISOString(), confirmationSentAt: null });
    expect(owedOf(asked).askedSince).toBe(later(day).toISOString());
    expect(life.ask(asked, later(day + 1))).toBeUndefined();
    expect(life.ask(added(), later(day))).toBeUndefined();
  });

  it("asks a repeat signup again once its last e-mail is that old, never moving the retention's day", () => {
    expect(life.ask(mailed, later(day), again)).toBeUndefined();
    const asked = life.ask(mailed, later(day + 1_000), again)!;
    expect(asked).toMatchObject({ optInSince: now.toISOString(), askedAt: later(day + 1_000).toISOString() });
    expect(owedOf(asked).askedSince).toBe(later(day + 1_000).toISOString());
    expect(owes(asked)).toBe(true);
    // Still owed: not again. Without resendAfterMs, an address asked before is never asked again.
    expect(life.ask(asked, later(30 * day), again)).toBeUndefined();
    expect(life.ask(mailed, later(30 * day))).toBeUndefined();
  });

  it("asks again a day after its mailbox had its e-mails, never one confirmed or refused by the mail server", () => {
    const capped = life.fail(added(), "capped", later(1_000), true)!;
    expect(life.ask(capped, later(day), again)).toBeUndefined();
    expect(life.ask(capped, later(day + 1_000), again)).toMatchObject({ state: "owed", confirmationFailedAt: null });
    expect(life.ask(life.fail(added(), "550", later(1_000))!, later(30 * day), again)).toBeUndefined();
    const confirmed = life.confirm(mailed, {
      createdAt: now.toISOString(),
      at: later(2),
      privacyPolicy: null,
      inviteCode: "c",
    });
    expect(life.ask(confirmed!.record, later(30 * day), again)).toBeUndefined();
  });
});

describe("confirm", () => {
  const confirmation = {
    createdAt: now.toISOString(),
    at: later(60_000),
    privacyPolicy: "p2",
    inviteCode: "AdaCode12345",
  };

  it("keeps the first confirmation and its invite code; a second press changes nothing", () => {
    const first = life.confirm(added(), confirmation)!;
    expect(first).toMatchObject({
      first: true,
      record: { state: "confirmed", confirmedAt: later(60_000).toISOString(), inviteCode: "AdaCode12345" },
    });
    const second = life.confirm(first.record, { ...confirmation, at: later(120_000), inviteCode: "Other1234567" })!;
    expect(second).toEqual({ record: first.record, first: false });
  });

  it("confirms nothing by a link for another signup of the address", () => {
    expect(life.confirm(added(), { ...confirmation, createdAt: later(1).toISOString() })).toBeUndefined();
  });
});

describe("announce", () => {
  it("notes an announcement for a confirmed signup once, and takes back only the one named", () => {
    const noted = life.announce(life.announce(member, "first")!, "second")!;
    expect(life.announce(noted, "first")).toBeUndefined();
    expect(life.announce(noted, "first-1")?.announcements).toEqual(["first", "second", "first-1"]);
    const undone = life.announce(noted, "first", true)!;
    expect(undone.announcements).toEqual(["second"]);
    expect(life.announce(undone, "first", true)).toBeUndefined();
    expect(life.announce(added(), "first")).toBeUndefined();
  });

  it("refuses an id a store could read as a pattern or that would split its list", () => {
    for (const id of ["a%", "a_b", "a,b", ""])
      expect(() => life.announce(member, id)).toThrow(/letters, digits and "-"/);
  });
});

describe("let in, a wave at a time", () => {
  const wave = (number: number, mail = true, createdAt = now.toISOString()) => ({
    wave: number,
    at: later(day),
    createdAt,
    mail,
  });

  it("lets a confirmed signup in once, owed its e-mail or the launch tool's; nobody unconfirmed or of another signup", () => {
    const inWave = life.letIn(member, wave(2))!;
    expect(inWave).toMatchObject({ wave: 2, letInAt: later(day).toISOString(), letInMail: "owed" });
    expect(life.letIn(inWave, wave(3))).toBeUndefined();
    expect(life.letIn(member, wave(1, false))).toMatchObject({ wave: 1, letInMail: "launch-tool" });
    expect(life.letIn(added(), wave(1))).toBeUndefined();
    // A link read before the address left and joined again names the earlier signup: not this one.
    expect(life.letIn(member, wave(1, true, later(-1).toISOString()))).toBeUndefined();
    expect(added()).toMatchObject({ wave: null, letInAt: null, letInMail: null });
  });

  it("takes the wave's e-mail before it is sent, once; sent, given back or refused only from being sent", () => {
    const owed = life.letIn(member, wave(2))!;
    const sending = life.letInMailStep(owed, "take", 2)!;
    expect(sending.letInMail).toBe("sending");
    expect(life.letInMailStep(sending, "take", 2)).toBeUndefined();
    expect(life.letInMailStep(owed, "take", 1)).toBeUndefined();
    expect(life.letInMailStep(owed, "sent", 2)).toBeUndefined();
    expect(life.letInMailStep(sending, "back", 2)?.letInMail).toBe("owed");
    expect(life.letInMailStep(sending, "refuse", 2)?.letInMail).toBe("refused");
    const sent = life.letInMailStep(sending, "sent", 2)!;
    expect(sent.letInMail).toBe("sent");
    for (const step of ["take", "sent", "back", "refuse"] as const)
      expect(life.letInMailStep(sent, step, 2)).toBeUndefined();
    // One the launch tool mails is never taken.
    expect(life.letInMailStep(life.letIn(member, wave(2, false))!, "take", 2)).toBeUndefined();
  });
});

describe("objections and restriction", () => {
  it("notes the first objection to being ranked by one's invites, and only that one", () => {
    const objected = life.object(added(), "ranking", later(day))!;
    expect(objected.rankingObjectedAt).toBe(later(day).toISOString());
    expect(life.object(objected, "ranking", later(2 * day))).toBeUndefined();
    expect(added().rankingObjectedAt).toBeNull();
  });

  it("clears the page and campaign tag, or the invite code, of one who objects to them; keeps the records", () => {
    const tagged = {
      ...added(),
      utmSource: "tiktok",
      utmCampaign: "launch",
      ref: "maya",
      landingPath: "/",
      invitedBy: "Code00000001",
    };
    expect(life.object(tagged, "attribution", later(day))).toMatchObject({
      ...{ utmSource: null, utmCampaign: null, ref: null, landingPath: null, utmMedium: null },
      invitedBy: "Code00000001",
      attributionObjectedAt: later(day).toISOString(),
    });
    expect(life.object(tagged, "invite", later(day))).toMatchObject({
      utmSource: "tiktok",
      invitedBy: null,
      inviteObjectedAt: later(day).toISOString(),
    });
    const records = life.object(tagged, "records", later(day))!;
    expect({ ...records, recordsObjectedAt: null }).toEqual(tagged);
  });

  it("restricts a record from every use: not asked, not claimed, not due, not expired, not let in, not counted", () => {
    const owed = added();
    const restricted = life.restrict(owed, later(day))!;
    expect(restricted.restrictedAt).toBe(later(day).toISOString());
    expect(life.restrict(restricted, later(2 * day))).toBeUndefined();
    expect(life.claim(restricted, later(day), 60_000)).toBeUndefined();
    expect(isDue(restricted, later(day))).toBe(false);
    expect(expired(restricted, later(40 * day))).toBe(false);
    const restrictedMember = life.restrict(member, later(day))!;
    expect(mayBeLetIn(restrictedMember)).toBe(false);
    expect(mayBeAnnouncedTo(restrictedMember)).toBe(false);
    expect(
      countsAsInvite(
        { mailboxDigest: "other" },
        { ...restrictedMember, invitedBy: "Code00000001", mailboxDigest: "m" },
      ),
    ).toBe(false);
    // Lifted, it is as before; a send under way when it began is owed again.
    expect(life.restrict(restricted, null)!.restrictedAt).toBeNull();
    const held = life.claim(owed, later(day), 60_000)!;
    expect(life.restrict(held, later(day))).toMatchObject({ state: "owed", confirmationClaimedUntil: null });
  });

  it("keeps a leaver's digest only for one whose wave went to the launch tool", () => {
    expect(life.leave(member, "link", later(day), "digest").digest).toBeUndefined();
    const toTool = life.letIn(member, { wave: 1, at: later(day), createdAt: member.createdAt, mail: false })!;
    expect(life.leave(toTool, "link", later(day), "digest").digest).toBe("digest");
  });
});
