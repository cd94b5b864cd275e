import type { PaceShard } from "../mail/pace";
import type { ListRow } from "../signup-life/types";
import { mailOutlook } from "./mail-outlook";

/* When the owed confirmations go at the provider's pace, and who would reach their 30th day unmailed. */

const now = new Date("2026-12-01T12:00:00.000Z");
const day = 86_400_000;
const owedSince = (ms: number, n = 0): Pick<ListRow, "state" | "optInSince" | "createdAt"> => {
  const at = new Date(now.getTime() - ms + n).toISOString();
  return { state: "owed", optInSince: at, createdAt: at };
};
const shard = (extra: Partial<PaceShard> = {}): PaceShard => ({
  next: 0,
  day: "2026-12-01",
  sent: 0,
  throttled: 0,
  ...extra,
});

describe("the mail's outlook", () => {
  it("sends a day's limit a UTC day from the hold's end, and counts those who would reach their 30th day unmailed", () => {
    // Resend's free plan: 100 a day, used up today, held until tomorrow. 250 owed: 100 tomorrow, 100 the day after,
    // 50 the day after that. The oldest 150 were asked 29 days and 6 hours ago: their 30th day ends tomorrow at
    // 06:00, so the 50 of them the day after's mail would reach find them gone.
    const rows = [
      ...Array.from({ length: 150 }, (_, n) => owedSince(29.25 * day, n)),
      ...Array.from({ length: 100 }, (_, n) => owedSince(day, n)),
      { state: "confirmed" as const, optInSince: now.toISOString(), createdAt: now.toISOString() },
    ];
    const outlook = mailOutlook(rows, {
      limits: { ratePerSecond: 2, connections: 2, dailyLimit: 100 },
      provider: "Resend (free plan)",
      shards: [
        shard({ sent: 100, hold: { reason: "quota", until: Date.parse("2026-12-02T00:00:00Z"), since: 0, count: 1 } }),
      ],
      now,
    });
    expect(outlook).toMatchObject({ owed: 250, sentToday: 100, hold: { reason: "quota" }, expireUnmailed: 50 });
    expect(outlook.clearedBy!.slice(0, 10)).toBe("2026-12-04");
    expect(outlook.advice).toMatch(/^Raise the plan or the daily limit .* 50 would reach their 30th day unmailed/);
  });

  it("says nothing to do when the pace clears what is owed in time", () => {
    const outlook = mailOutlook([owedSince(60_000)], {
      limits: { ratePerSecond: 14, connections: 10, dailyLimit: 50_000 },
      provider: "Amazon SES",
      shards: [shard({ sent: 3 }), shard({ sent: 4 })],
      now,
    });
    expect(outlook).toMatchObject({ owed: 1, sentToday: 7, hold: null, expireUnmailed: 0, advice: null });
  });
});
