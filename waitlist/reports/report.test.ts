import { load } from "cheerio";
import { hiddenTag, reportFigures } from "./report";
import { funnelStages } from "./report-charts";
import { reportHtml } from "./report-html";
import type { ListRow } from "../signup-life/types";

const signup = (createdAt: string, extra: Partial<ListRow> = {}): ListRow => ({
  createdAt,
  utmSource: null,
  utmCampaign: null,
  ref: null,
  state: extra.confirmedAt ? "confirmed" : "sent",
  confirmedAt: null,
  inviteCode: null,
  invitedBy: null,
  mailboxDigest: null,
  wave: null,
  letInAt: null,
  letInMail: null,
  rankingObjectedAt: null,
  restrictedAt: null,
  optInSince: createdAt,
  ...extra,
});
const letIn = (wave: number, letInAt: string, letInMail: ListRow["letInMail"]) => ({ wave, letInAt, letInMail });

/*
 * Four on the list: Ada, who confirmed and invited Bob and Carl; Bob, who signed up half an hour after midnight in
 * Berlin (still the day before in UTC) by a link whose ref is his address, and confirmed; Carl, not yet; Dora.
 * Ada and Bob were let in as wave 1 (Ada's e-mail sent, Bob's still owed), Dora as wave 2, for the launch tool.
 */
const signups = [
  signup("2026-11-20T09:00:00Z", {
    utmSource: "tiktok",
    utmCampaign: "launch",
    confirmedAt: "2026-11-20T10:00:00Z",
    inviteCode: "AdaCode12345",
    mailboxDigest: "m-ada",
    ...letIn(1, "2026-11-23T10:00:00Z", "sent"),
  }),
  signup("2026-11-21T23:30:00Z", {
    ref: "bob@example.com",
    confirmedAt: "2026-11-22T08:00:00Z",
    inviteCode: "BobCode12345",
    invitedBy: "AdaCode12345",
    mailboxDigest: "m-bob",
    ...letIn(1, "2026-11-23T10:00:00Z", "owed"),
  }),
  signup("2026-11-22T10:00:00Z", { utmSource: "newsletter", invitedBy: "AdaCode12345", mailboxDigest: "m-carl" }),
  signup("2026-11-23T08:00:00Z", {
    utmSource: "tiktok",
    utmCampaign: "mail me at dora@example.com",
    confirmedAt: "2026-11-23T09:00:00Z",
    mailboxDigest: "m-dora",
    ...letIn(2, "2026-11-23T11:15:00Z", "launch-tool"),
  }),
];
const now = new Date("2026-11-23T12:00:00Z");
const departures = { left: 2, pruned: 3, afterWave: 0 };

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
    expect(reportFigures([], { left: 0, pruned: 0, afterWave: 0 }, { now, timeZone: "UTC" }).days).toHaveLength(7);
  });

  it("puts every signup ever stored in one stage of the funnel: on the list, confirmed or not, left or pruned", () => {
    expect(figures.funnel).toEqual({ signedUp: 9, confirmed: 3, unconfirmed: 1, left: 2, pruned: 3, afterWave: 0 });
    // Those deleted after their wave are a stage of their own once there are any; a restricted entry is in none.
    const launched = reportFigures(
      [...signups, { ...signups[0]!, restrictedAt: now.toISOString() }],
      {
        ...departures,
        afterWave: 4,
      },
      { now, timeZone: "UTC" },
    );
    expect(launched.funnel).toMatchObject({ signedUp: 13, afterWave: 4 });
    expect(funnelStages(launched.funnel).at(-1)).toEqual({ label: "After a wave", count: 4 });
    expect(funnelStages(figures.funnel).map((stage) => stage.label)).not.toContain("After a wave");
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

  it("gives the launch's waves as stats does: how many each let in, when, and its e-mails not sent yet", () => {
    expect(figures.waves).toEqual([
      { wave: 1, people: 2, from: "2026-11-23T10:00:00Z", to: "2026-11-23T10:00:00Z", mailOwed: 1, mailUnsure: 0 },
      { wave: 2, people: 1, from: "2026-11-23T11:15:00Z", to: "2026-11-23T11:15:00Z", mailOwed: 0, mailUnsure: 0 },
    ]);
    // Before the first wave, none.
    const notYet = signups.map((one) => ({ ...one, wave: null, letInAt: null, letInMail: null }));
    expect(reportFigures(notYet, departures, { now, timeZone: "UTC" }).waves).toEqual([]);
  });

  it("holds no address anywhere, nor any mailbox's digest", () => {
    const text = JSON.stringify(figures);
    expect(text).not.toContain("@");
    expect(text).not.toMatch(/m-(ada|bob|carl|dora)/);
  });
});

describe("the report's page", () => {
  // Vega runs only in a process of its own (cli/report.test.ts): the page here is given stand-in charts.
  const svg = '<svg width="10" height="10"><rect width="10" height="10"></rect></svg>';
  const charts = { perDay: svg, funnel: svg, sources: svg, campaigns: svg, referralTags: svg, topInviters: svg };
  const page = (figures: ReturnType<typeof reportFigures>) => load(reportHtml(figures, charts, { from: "a test" }));
  const rowsOf = ($: ReturnType<typeof load>, caption: string) =>
    $(`table:has(caption:contains("${caption}")) tbody tr`)
      .toArray()
      .map((row) =>
        $(row)
          .children()
          .toArray()
          .map((cell) => $(cell).text()),
      );

  it("shows each wave: the people it let in, when (UTC), and its e-mails not sent yet", () => {
    const figures = reportFigures(signups, departures, { now, timeZone: "Europe/Berlin" });
    const $ = page(figures);
    expect($("section[aria-labelledby=waves] h2#waves").text()).toBe("Let in, a wave at a time");
    expect($("#waves + p").text()).toMatch(/^3 people let in, in 2 waves; those who left since are not counted\./);
    expect(rowsOf($, "The waves")).toEqual([
      ["1", "2", "2026-11-23 10:00", "1", "0"],
      ["2", "1", "2026-11-23 11:15", "0", "0"],
    ]);
    expect(
      $("table:has(caption:contains('The waves')) thead th")
        .toArray()
        .map((th) => $(th).text()),
    ).toEqual(["Wave", "People let in", "When (UTC)", "E-mails not sent yet", "Unsure"]);
    // A wave let in over more than a minute (two runs of one wave, say) gives its first and last.
    const spread = page({
      ...figures,
      waves: [
        { wave: 1, people: 2, from: "2026-11-23T10:00:00Z", to: "2026-11-23T10:05:00Z", mailOwed: 0, mailUnsure: 0 },
        { wave: 2, people: 1, from: "2026-11-23T23:59:00Z", to: "2026-11-24T00:01:00Z", mailOwed: 0, mailUnsure: 0 },
      ],
    });
    expect(rowsOf(spread, "The waves").map(([, , when]) => when)).toEqual([
      "2026-11-23 10:00 to 10:05",
      "2026-11-23 23:59 to 2026-11-24 00:01",
    ]);
  });

  it("says no one has been let in yet before the first wave, with no table", () => {
    const $ = page({ ...reportFigures(signups, departures, { now, timeZone: "UTC" }), waves: [] });
    expect($("#waves + p").text()).toBe(
      "No one has been let in yet: npm run waitlist -- let-in --count N lets the next N confirmed signups in, as one wave.",
    );
    expect(rowsOf($, "The waves")).toEqual([]);
  });
});
