import type { ListRow } from "../signup-life/types";
import { digestFigures, digestMessage, sendFoundersDigest } from "./daily-digest";
import { mailFigures } from "./mail-figures";
import type { MailMessage } from "../mail/confirmation-message";
import { SqliteStore } from "../stores/sqlite-store";
import { testSite } from "../../test/support/site-settings";

const now = new Date("2026-11-26T07:30:00Z");

async function seeded() {
  const store = new SqliteStore(":memory:");
  const join = async (email: string, at: string, confirmedAt?: string, extra = {}) => {
    await store.add({
      email,
      emailKey: email,
      source: "start",
      at: new Date(at),
      mailboxDigest: `m-${email}`,
      ...extra,
    });
    if (!confirmedAt) return undefined;
    return (await store.confirm(email, {
      createdAt: new Date(at).toISOString(),
      at: new Date(confirmedAt),
      privacyPolicy: null,
    }))!.inviteCode;
  };
  const code = await join("old@example.com", "2026-11-20T10:00:00Z", "2026-11-20T11:00:00Z");
  await join("ada@example.com", "2026-11-25T09:00:00Z", "2026-11-25T10:00:00Z", { invitedBy: code });
  await join("bob@example.com", "2026-11-25T23:59:00Z");
  await join("gone@example.com", "2026-11-24T09:00:00Z");
  await store.remove("gone@example.com", "link", new Date("2026-11-25T12:00:00Z"));
  await join("today@example.com", "2026-11-26T01:00:00Z", "2026-11-26T02:00:00Z");
  return store;
}

describe("the founders' digest", () => {
  it("gives yesterday's signups, confirmations, leaves and invites (UTC), and the totals", async () => {
    const store = await seeded();
    const figures = digestFigures(
      await store.listRows(),
      {
        day: await store.departureCounts({
          from: new Date("2026-11-25T00:00:00Z"),
          to: new Date("2026-11-26T00:00:00Z"),
        }),
        total: await store.departureCounts(),
      },
      "2026-11-25",
    );
    expect(figures).toEqual({
      day: "2026-11-25",
      signups: 2,
      confirmations: 1,
      left: 1,
      pruned: 0,
      afterWave: 0,
      invites: 1,
      totals: { signups: 4, confirmed: 3, left: 1, pruned: 0, afterWave: 0, invited: 1 },
      letIn: null,
      mail: mailFigures([], "2026-11-25"),
    });
    await store.close();
  });

  it("is mailed once a day to the founders, with figures and no address of anyone on the list", async () => {
    const store = await seeded();
    const sent: MailMessage[] = [];
    const mailer = { send: async (message: MailMessage) => void sent.push(message) };
    const to = ["founder@example.com", "cofounder@example.com"];
    await expect(sendFoundersDigest({ store, mailer, to, now, site: testSite })).resolves.toBe(true);
    // Again the same day, by this server or another: once.
    await expect(sendFoundersDigest({ store, mailer, to, now, site: testSite })).resolves.toBe(false);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.to).toBe("founder@example.com, cofounder@example.com");
    expect(sent[0]!.subject).toBe("Tandem waitlist, 2026-11-25: 2 signups, 1 confirmed");
    expect(sent[0]!.text).toContain("Confirmed through an invite: 1 (in all 1)");
    for (const part of [sent[0]!.text, sent[0]!.html]) {
      expect(part).not.toMatch(/(old|ada|bob|gone|today)@example\.com/);
      // Before the first wave, the digest says nothing of waves.
      expect(part).not.toMatch(/let in|wave/i);
    }
    // The next day, the next day's.
    await expect(
      sendFoundersDigest({ store, mailer, to, now: new Date("2026-11-27T00:05:00Z"), site: testSite }),
    ).resolves.toBe(true);
    await store.close();
  });

  it("adds, once the launch has waves, those let in that day with their waves, the totals, and e-mails owed", async () => {
    const store = await seeded();
    // Old was let in as wave 1 the day before and mailed; Ada as wave 2 yesterday, her e-mail still owed.
    const letIn = (email: string, createdAt: string, wave: number, at: string) =>
      store.letIn(email, { wave, at: new Date(at), createdAt, mail: true });
    expect(await letIn("old@example.com", "2026-11-20T10:00:00.000Z", 1, "2026-11-24T09:00:00Z")).toBe(true);
    await store.letInMail("old@example.com", "take", 1);
    await store.letInMail("old@example.com", "sent", 1);
    expect(await letIn("ada@example.com", "2026-11-25T09:00:00.000Z", 2, "2026-11-25T18:00:00Z")).toBe(true);
    const sent: MailMessage[] = [];
    const mailer = { send: async (message: MailMessage) => void sent.push(message) };
    await expect(sendFoundersDigest({ store, mailer, to: ["founder@example.com"], now, site: testSite })).resolves.toBe(
      true,
    );
    const [{ subject, text, html }] = sent as [MailMessage];
    expect(subject).toBe("Tandem waitlist, 2026-11-25: 2 signups, 1 confirmed, 1 let in");
    const waves =
      "Let in on 2026-11-25 with wave 2; 2 waves so far. 1 e-mail of a wave not sent yet: run npm run waitlist -- let-in again.";
    expect(text).toContain(`Let in: 1 (in all 2)\n\n${waves}\n\nMail, the 7 days`);
    expect(html).toContain(">Let in</td>");
    expect(html).toContain(waves);
    for (const part of [text, html]) expect(part).not.toMatch(/(old|ada|bob|gone|today)@example\.com/);
    await store.close();
  });

  it("names every wave of the day, and says when the day had none", () => {
    const row = (wave: number | null, letInAt: string | null, letInMail: ListRow["letInMail"]): ListRow => ({
      createdAt: "2026-11-20T10:00:00.000Z",
      utmSource: null,
      utmCampaign: null,
      ref: null,
      state: "confirmed",
      confirmedAt: "2026-11-20T11:00:00.000Z",
      inviteCode: null,
      invitedBy: null,
      mailboxDigest: null,
      wave,
      letInAt,
      letInMail,
      rankingObjectedAt: null,
      restrictedAt: null,
      optInSince: "2026-11-20T10:00:00.000Z",
    });
    const rows = [
      row(1, "2026-11-24T09:00:00.000Z", "sent"),
      row(2, "2026-11-25T08:00:00.000Z", "sent"),
      row(3, "2026-11-25T12:00:00.000Z", "launch-tool"),
      row(3, "2026-11-25T12:00:00.000Z", "launch-tool"),
      row(4, "2026-11-25T23:59:00.000Z", "sent"),
      row(null, null, null),
    ];
    const none = { left: 0, pruned: 0, afterWave: 0 };
    const figures = (day: string) => digestFigures(rows, { day: none, total: none }, day);
    expect(figures("2026-11-25").letIn).toEqual({
      day: 4,
      dayWaves: [2, 3, 4],
      total: 5,
      waves: 4,
      mailOwed: 0,
      overdue: { entries: 0, daysOver: 0 },
    });
    expect(digestMessage(["founder@example.com"], figures("2026-11-25"), testSite).text).toContain(
      "Let in: 4 (in all 5)\n\nLet in on 2026-11-25 with waves 2, 3 and 4; 4 waves so far.\n",
    );
    const quiet = digestMessage(["founder@example.com"], figures("2026-11-23"), testSite);
    expect(quiet.subject).toBe("Tandem waitlist, 2026-11-23: 0 signups, 0 confirmed");
    expect(quiet.text).toContain("Let in: 0 (in all 5)\n\nNo wave on 2026-11-23; 4 waves so far.\n");
    // The retention's lag (issue 67): 90 days after wave 1 and a day's grace, nothing is late; three days on, all are,
    // and the digest says so in its subject and its text, with what removes them now. A restricted one waits, unsaid.
    expect(figures("2027-02-22").letIn?.overdue).toEqual({ entries: 0, daysOver: 0 });
    const late = digestMessage(["founder@example.com"], figures("2027-02-25"), testSite);
    expect(late.subject).toBe("Tandem waitlist, 2027-02-25: 0 signups, 0 confirmed, entries kept past their wave");
    expect(late.text).toContain(
      "5 entries are still kept past the 90 days after their wave that the Privacy Policy allows, the oldest by 3 days: the daily pass removes a batch at a time; npm run waitlist -- prune --unconfirmed-older-than 30d (with --netlify on Netlify) removes them all now.",
    );
    const held = rows.map((one) => (one.wave === 1 ? { ...one, restrictedAt: "2026-12-01T00:00:00.000Z" } : one));
    expect(digestFigures(held, { day: none, total: none }, "2027-02-25").letIn?.overdue).toEqual({
      entries: 4,
      daysOver: 2,
    });
  });

  it("mails nothing when FOUNDERS_DIGEST_TO is not set", async () => {
    const store = await seeded();
    const sent: MailMessage[] = [];
    await expect(
      sendFoundersDigest({ store, mailer: { send: async (m) => void sent.push(m) }, to: [], now, site: testSite }),
    ).resolves.toBe(false);
    expect(sent).toEqual([]);
    // Nor takes the day: set later that day, it still sends.
    await expect(store.once("digest-2026-11-25")).resolves.toBe(true);
    await store.close();
  });

  it("writes a message with a stable Message-ID per day", () => {
    const figures = {
      day: "2026-11-25",
      signups: 0,
      confirmations: 0,
      left: 0,
      pruned: 0,
      afterWave: 0,
      invites: 0,
      totals: { signups: 0, confirmed: 0, left: 0, pruned: 0, afterWave: 0, invited: 0 },
      letIn: null,
      mail: mailFigures([], "2026-11-25"),
    };
    expect(digestMessage(["a@example.com"], figures, testSite).messageId).toBe(
      digestMessage(["b@example.com"], figures, testSite).messageId,
    );
  });
});
