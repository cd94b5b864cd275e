import { mailFigures } from "../../waitlist/reports/mail-figures";
import { digestMessage } from "../../waitlist/reports/daily-digest";
import { mailOutlook } from "../../waitlist/reports/mail-outlook";
import { mailProviders } from "../../config/mail-providers";
import { testSite } from "../../test/support/site-settings";
import { benchChecks, burstChecks, type CheckFigures } from "./checks";
import {
  mailedAfterSuppression,
  mailedTwice,
  readEvent,
  refusedForGood,
  sumProviderFigures,
  type ProviderFigures,
  type ProviderReport,
} from "./mail";
import { expiringAtPace, expiringNamed, owedNamed, paceLines } from "./small-plan";
import { providerWebhook, snsKey } from "../../test/support/mail-webhooks";

/* The bench's own reading of what it measured: the provider's events, the mail after a suppression, the founders'
 * digest, and the checks' marks. */

const met: CheckFigures = {
  viralMonth: { lost: 0, refusedForLimits: 0, refusedForQuota: 0, throttled: 10, sent: 13_000 },
  burst: { signups: 1_000, confirmedOnce: 1_000, lastConfirmationSeconds: 120, instances: 40 },
  provider: { connections: 10, maxConnections: 10, refusedConnections: 0, refusedForGood: 0, mailedTwice: 0 },
  outage: { owed: 10_000, clearedMinutes: 90 },
  mailedAfterSuppression: 0,
  credits: { idleMonth: 4, viralMonth: 210, idleMonthAt100k: 5 },
  smallPlan: {
    acknowledged: 1_000,
    sentOnTheDay: 100,
    dailyLimit: 100,
    refused: 0,
    digest: { owed: 900, expiringNamed: 0, expiringAtPace: 0 },
  },
};

describe("the checks", () => {
  it("of the burst alone are those of the full run's burst and provider", () => {
    expect(Object.keys(burstChecks(met.burst, met.provider))).toEqual([
      "burstMailed",
      "burstOnManyInstances",
      "connectionsWithinLimit",
      "noneMailedTwice",
      "noneRefusedByReplies",
    ]);
    expect(Object.keys(benchChecks(met))).toEqual(
      expect.arrayContaining(Object.keys(burstChecks(met.burst, met.provider))),
    );
  });

  it("are all met by a run within every mark", () => {
    const checks = benchChecks(met);
    expect(Object.values(checks).filter((check) => !check.met)).toEqual([]);
    expect(checks.viralMonthThrottleReplies!.measured).toBe("10 of 13000 (0.08 %)");
  });

  it("each fail past its mark", () => {
    const failing = (change: (figures: CheckFigures) => void) => {
      const figures = structuredClone(met);
      change(figures);
      return Object.entries(benchChecks(figures))
        .filter(([, check]) => !check.met)
        .map(([name]) => name);
    };
    expect(failing((f) => (f.viralMonth.lost = 1))).toEqual(["viralMonthMailedOnce"]);
    expect(failing((f) => (f.viralMonth.refusedForQuota = 1))).toEqual(["viralMonthNoneRefusedForLimits"]);
    expect(failing((f) => (f.viralMonth.throttled = 131))).toEqual(["viralMonthThrottleReplies"]);
    expect(failing((f) => (f.burst.lastConfirmationSeconds = 181))).toEqual(["burstMailed"]);
    expect(failing((f) => (f.burst.confirmedOnce = 999))).toEqual(["burstMailed"]);
    expect(failing((f) => (f.burst.instances = 19))).toEqual(["burstOnManyInstances"]);
    expect(failing((f) => (f.provider.maxConnections = 11))).toEqual(["connectionsWithinLimit"]);
    expect(failing((f) => (f.provider.refusedConnections = 1))).toEqual(["connectionsWithinLimit"]);
    expect(failing((f) => (f.provider.mailedTwice = 1))).toEqual(["noneMailedTwice"]);
    expect(failing((f) => (f.provider.refusedForGood = 1))).toEqual(["noneRefusedByReplies"]);
    expect(failing((f) => (f.outage.clearedMinutes = null))).toEqual(["outageCleared"]);
    expect(failing((f) => (f.mailedAfterSuppression = 1))).toEqual(["noMailAfterSuppression"]);
    expect(failing((f) => (f.credits.viralMonth = 250.01))).toEqual(["viralMonthCredits"]);
    expect(failing((f) => (f.credits.idleMonthAt100k = 10.5))).toEqual(["idleMonthAt100kCredits"]);
    expect(failing((f) => (f.smallPlan.sentOnTheDay = 101))).toEqual([
      "smallPlanWithinItsDay",
      "smallPlanDigestNamesOwed",
    ]);
    expect(failing((f) => (f.smallPlan.refused = 1))).toEqual(["smallPlanNobodyRefused"]);
    expect(failing((f) => (f.smallPlan.digest.expiringAtPace = 5))).toEqual(["smallPlanDigestNamesOwed"]);
  });
});

describe("the provider's figures", () => {
  const figures = (sent: number): ProviderFigures => ({
    name: "ses",
    ratePerSecond: 14,
    connections: 10,
    dailyLimit: 50_000,
    sent,
    throttled: 1,
    dropped: 1,
    refusedForQuota: 0,
    refusedConnections: 0,
    maxConnections: sent === 30 ? 2 : 9,
    bounced: 2,
    complained: 0,
    eventsFailed: 0,
    mailedAfterSuppression: 0,
    mailedTwice: 1,
  });

  it("add up across deployments, keeping the provider's limits and the most connections either saw at once", () => {
    expect(sumProviderFigures(figures(30), figures(13_000))).toMatchObject({
      name: "ses",
      ratePerSecond: 14,
      sent: 13_030,
      throttled: 2,
      bounced: 4,
      maxConnections: 9,
      mailedTwice: 2,
    });
    const report = (sent: number): ProviderReport => ({ ...figures(sent), refusedForGood: 1 });
    expect(sumProviderFigures(report(30), report(13_000)).refusedForGood).toBe(2);
  });

  it("count the addresses sent one message twice: the same Message-ID to the same recipient", () => {
    const to = (address: string, messageId: string) => ({
      envelope: { from: "hello@jointandem.app", to: [address] },
      mail: { messageId } as Parameters<typeof mailedTwice>[0][number]["mail"],
    });
    const deliveries = [
      to("ada@example.com", "<1@jointandem.app>"),
      to("ada@example.com", "<2@jointandem.app>"),
      to("bob@example.com", "<3@jointandem.app>"),
      to("Bob@example.com", "<3@jointandem.app>"),
      to("bob@example.com", "<3@jointandem.app>"),
    ];
    expect(mailedTwice(deliveries)).toBe(1);
  });

  it("count the signups refused for good by a reply, not those refused by a bounce the site took", () => {
    const rows = [
      { email: "ada@example.com", state: "refused" },
      { email: "bob@example.com", state: "refused" },
      { email: "cy@example.com", state: "sent" },
    ];
    expect(refusedForGood(rows, new Map([["bob@example.com", 1_000]]))).toBe(1);
  });

  it("read whom an SES bounce or complaint names, from the notification as SNS posts it", () => {
    const signing = { snsKey: snsKey().privateKey };
    const bounce = providerWebhook("ses", { kind: "bounce", address: "Ada@Example.com", permanent: true }, signing);
    expect(readEvent(bounce.body)).toEqual({ kind: "bounce", addresses: ["ada@example.com"] });
    const complaint = providerWebhook(
      "ses",
      { kind: "complaint", address: "bob@example.com", permanent: true },
      signing,
    );
    expect(readEvent(complaint.body)).toEqual({ kind: "complaint", addresses: ["bob@example.com"] });
  });

  it("count the messages taken for an address after its bounce or complaint was taken, none before", () => {
    const to = (address: string, at: number) => ({ at, envelope: { from: "hello@jointandem.app", to: [address] } });
    const taken = new Map([["ada@example.com", 1_000]]);
    const deliveries = [to("ada@example.com", 500), to("ada@example.com", 1_500), to("bob@example.com", 2_000)];
    expect(mailedAfterSuppression(deliveries, taken)).toBe(1);
  });
});

describe("the founders' digest as the bench reads it", () => {
  const day = 86_400_000;
  const now = new Date("2027-03-02T00:00:00.000Z");
  const owed = (count: number) =>
    Array.from({ length: count }, (_, n) => {
      const at = new Date(now.getTime() - day + 8 * 3_600_000 + n * 1_000).toISOString();
      return { state: "owed" as const, optInSince: at, createdAt: at };
    });
  const digestLines = (count: number) => {
    const limits = { ...mailProviders["resend-free"], provider: mailProviders["resend-free"].label };
    const outlook = mailOutlook(owed(count), { limits, provider: limits.provider, shards: [], now });
    const figures = {
      day: "2027-03-01",
      signups: count,
      confirmations: 0,
      left: 0,
      pruned: 0,
      afterWave: 0,
      invites: 0,
      totals: { signups: count, confirmed: 0, left: 0, pruned: 0, afterWave: 0, invited: 0 },
      letIn: null,
      mail: mailFigures([], "2027-03-01", outlook),
    };
    return paceLines(digestMessage(["founders@jointandem.app"], figures, testSite).text);
  };

  it("finds the pace, the owed and no warning when the owed go within their 30 days", () => {
    const lines = digestLines(900);
    expect(lines[0]).toMatch(/^The pace: Resend \(free plan\), 2 a second, 100 a day/);
    expect(owedNamed(lines)).toBe(900);
    expect(expiringNamed(lines)).toBe(0);
    expect(expiringAtPace(900, 100)).toBe(0);
  });

  it("finds the warning naming how many would reach their 30th day unmailed, as many as the pace leaves", () => {
    const lines = digestLines(3_500);
    expect(owedNamed(lines)).toBe(3_500);
    expect(expiringNamed(lines)).toBe(500);
    expect(expiringAtPace(3_500, 100)).toBe(500);
  });
});
