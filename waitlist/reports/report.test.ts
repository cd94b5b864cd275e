import { hiddenTag, reportFigures } from "./report";
import type { StatsSignup } from "./stats";

const signup = (createdAt: string, extra: Partial<StatsSignup> = {}): StatsSignup => ({
  createdAt,
  utmSource: null,
  utmCampaign: null,
  ref: null,
  confirmedAt: null,
  inviteCode: null,
  invitedBy: null,
  mailbox: null,
  wave: null,
  letInAt: null,
  letInMail: null,
  ...extra,
});

/*
 * Four on the list: Ada, who confirmed and invited Bob and Carl; Bob, who signed up half an hour after midnight in
 * Berlin (still the day before in UTC) by a link whose ref is his address, and confirmed; Carl, not yet; Dora.
 */
const signups = [
  signup("2026-11-20T09:00:00Z", {
    utmSource: "tiktok",
    utmCampaign: "launch",
    confirmedAt: "2026-11-20T10:00:00Z",
    inviteCode: "AdaCode12345",
    mailbox: "m-ada",
  }),
  signup("2026-11-21T23:30:00Z", {
    ref: "bob@example.com",
    confirmedAt: "2026-11-22T08:00:00Z",
    inviteCode: "BobCode12345",
    invitedBy: "AdaCode12345",
    mailbox: "m-bob",
  }),
  signup("2026-11-22T10:00:00Z", { utmSource: "newsletter", invitedBy: "AdaCode12345", mailbox: "m-carl" }),
  signup("2026-11-23T08:00:00Z", {
    utmSource: "tiktok",
    utmCampaign: "mail me at dora@example.com",
    confirmedAt: "2026-11-23T09:00:00Z",
    mailbox: "m-dora",
  }),
];
const now = new Date("2026-11-23T12:00:00Z");
const departures = { left: 2, pruned: 3 };

describe("the report's figures", () => {
  const figures = reportFigures(signups, departures, { now, timeZone: "Europe/Berlin" });

  it("counts signups and confirmations on their local day, every day since the first signup (a week at least)", () => {
    expect(figures.days.map((day) => [day.date, day.weekday, day.signups, day.confirmations])).toEqual([
      ["2026-11-17", "Tue", 0, 0],
      ["2026-11-18", "Wed", 0, 0],
      ["2026-11-19", "Thu", 0, 0],
      ["2026-11-20", "Fri", 1, 1],
      ["2026-11-21", "Sat", 0, 0],
      // Bob signed up at 00:30 in Berlin, Carl at 11:00; Bob confirmed at 09:00.
      ["2026-11-22", "Sun", 2, 1],
      ["2026-11-23", "Mon", 1, 1],
    ]);
    const utc = reportFigures(signups, departures, { now, timeZone: "UTC" });
    expect(utc.days.find((day) => day.date === "2026-11-21")!.signups).toBe(1);
    expect([figures.timeZone, figures.at]).toEqual(["Europe/Berlin", "2026-11-23T12:00:00.000Z"]);
  });

  it("draws the last N days when asked, and at most 366 days of an older list", () => {
    expect(reportFigures(signups, departures, { now, days: 2, timeZone: "UTC" }).days.map((day) => day.date)).toEqual([
      "2026-11-22",
      "2026-11-23",
    ]);
    const old = [signup("2025-01-01T00:00:00Z"), ...signups];
    const days = reportFigures(old, departures, { now, timeZone: "UTC" }).days;
    expect([days.length, days[0]!.date, days.at(-1)!.date]).toEqual([366, "2025-11-23", "2026-11-23"]);
    // A list without signups yet still has its week.
    expect(reportFigures([], { left: 0, pruned: 0 }, { now, timeZone: "UTC" }).days).toHaveLength(7);
  });

  it("puts every signup ever stored in one stage of the funnel: on the list, confirmed or not, left or pruned", () => {
    expect(figures.funnel).toEqual({ signedUp: 9, confirmed: 3, unconfirmed: 1, left: 2, pruned: 3 });
  });

  it("gives where signups came from as stats does, with a tag that holds an address hidden", () => {
    expect(figures.sources.map((share) => [share.name, share.signups, share.confirmed])).toEqual([
      ["tiktok", 2, 2],
      ["(none)", 1, 1],
      ["newsletter", 1, 0],
    ]);
    expect(figures.campaigns.map((share) => share.name)).toEqual(["(none)", hiddenTag, "launch"]);
    expect(figures.referralTags.map((share) => [share.name, share.signups, share.percent])).toEqual([
      ["(none)", 3, 75],
      [hiddenTag, 1, 25],
    ]);
  });

  it("gives the invite loop by code and count: Bob confirmed through Ada's invite, Carl not yet", () => {
    expect(figures.invites).toEqual({
      confirmedThroughInvites: 1,
      confirmed: 3,
      percentOfConfirmed: 33.3,
      topInviters: [{ code: "AdaCode12345", confirmedInvites: 1 }],
    });
  });

  it("holds no address anywhere, nor any mailbox's digest", () => {
    const text = JSON.stringify(figures);
    expect(text).not.toContain("@");
    expect(text).not.toMatch(/m-(ada|bob|carl|dora)/);
  });
});
