import { mailFigures } from "../../waitlist/reports/mail-figures";
import { digestMessage } from "../../waitlist/reports/daily-digest";
import { mailOutlook } from "../../waitlist/reports/mail-outlook";
import { mailProviders } from "../../config/mail-providers";
import { testSite } from "../../test/support/site-settings";
import { benchChecks, type CheckFigures } from "./checks";
import { mailedAfterSuppression, readEvent, sumProviderFigures, type ProviderFigures } from "./mail";
import { expiringAtPace, expiringNamed, owedNamed, paceLines } from "./small-plan";
import { providerWebhook, snsKey } from "../../test/support/mail-webhooks";

/* The bench's own reading of what it measured: the provider's events, the mail after a suppression, the founders'
 * digest, and the checks' marks. */

const met: CheckFigures = {
  viralMonth: { lost: 0, refusedForLimits: 0, refusedForQuota: 0, throttled: 10, sent: 13_000 },
  burst: { signups: 1_000, confirmedOnce: 1_000, lastConfirmationSeconds: 120 },
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
    maxConnections: 2,
    bounced: 2,
    complained: 0,
    eventsFailed: 0,
    mailedAfterSuppression: 0,
  });

  it("add up across deployments, keeping the provider's limits", () => {
    expect(sumProviderFigures(figures(30), figures(13_000))).toMatchObject({
      name: "ses",
      ratePerSecond: 14,
      sent: 13_030,
      throttled: 2,
      bounced: 4,
    });
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
