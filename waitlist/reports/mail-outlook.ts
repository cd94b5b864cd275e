import type { MailLimits } from "../../config/mail-providers";
import { pacedRate, type Hold, type PaceShard } from "../mail/pace";
import { owes, unconfirmedRetentionMs } from "../signup-life/rules";
import type { ListRow } from "../signup-life/types";

/*
 * When the confirmations owed will go, at the pace the provider allows (mail/pace.ts): for the founders' stats, report
 * and digest. A hold (a quota used, the server down, a throttle) starts the sending later; a daily limit sends a
 * day's worth a day; and whoever would reach their 30th day unmailed at that pace is counted, for the retention
 * would delete them before they could confirm. Figures only: no address.
 */

export interface MailOutlook {
  provider: string;
  ratePerSecond: number;
  dailyLimit: number | null;
  /** Sent today (UTC) by every sender, as the pace counted them. */
  sentToday: number;
  /** The provider's hold on every sender now, if any. */
  hold: Pick<Hold, "reason" | "until"> | null;
  /** Confirmations owed now. */
  owed: number;
  /** When the last of them would be mailed at the pace allowed; null when none is owed. */
  clearedBy: string | null;
  /** Of them, those who would reach their 30th day unmailed at that pace: the retention would delete them first. */
  expireUnmailed: number;
  /** What a founder can do, when the mail is held or late; null when nothing is. */
  advice: string | null;
}

const dayMs = 86_400_000;
const nextUtcDay = (ms: number) => Date.parse(`${new Date(ms).toISOString().slice(0, 10)}T00:00:00.000Z`) + dayMs;

/** The pace's shards as one: today's count, and the hold every shard carries. */
function together(shards: readonly PaceShard[], now: number) {
  const day = new Date(now).toISOString().slice(0, 10);
  const sentToday = shards.filter((shard) => shard.day === day).reduce((sum, shard) => sum + shard.sent, 0);
  const holds = shards.flatMap((shard) => (shard.hold && shard.hold.until > now ? [shard.hold] : []));
  const hold = holds.sort((a, b) => b.until - a.until)[0];
  return { sentToday, hold: hold ? { reason: hold.reason, until: hold.until } : null };
}

/**
 * When each owed confirmation would go: from the hold's end (or now), a day's limit a UTC day (what is left of
 * today's first), at the rate allowed within a day.
 */
export function mailOutlook(
  rows: readonly Pick<ListRow, "state" | "optInSince" | "createdAt">[],
  { limits, provider, shards, now }: { limits: MailLimits; provider: string; shards: readonly PaceShard[]; now: Date },
): MailOutlook {
  const at = now.getTime();
  const { sentToday, hold } = together(shards, at);
  // The sweeps send the oldest first.
  const owed = rows.filter(owes).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  const perSecond = pacedRate(limits.ratePerSecond);
  let start = Math.max(at, hold?.until ?? at);
  // What is left of the day the sending starts on.
  let room =
    limits.dailyLimit === null ? Infinity : start >= nextUtcDay(at) ? limits.dailyLimit : limits.dailyLimit - sentToday;
  let dayEnd = nextUtcDay(start);
  let sent = 0;
  let last = start;
  let expireUnmailed = 0;
  for (const one of owed) {
    while (room <= 0) {
      start = dayEnd;
      dayEnd += dayMs;
      room = limits.dailyLimit!;
      sent = 0;
    }
    last = start + (sent * 1000) / perSecond;
    sent++;
    room--;
    if (one.optInSince !== null && Date.parse(one.optInSince) + unconfirmedRetentionMs < last) expireUnmailed++;
  }
  const late = expireUnmailed > 0;
  const advice = late
    ? `Raise the plan or the daily limit (MAIL_DAILY_LIMIT, MAIL_RATE_PER_SECOND) with ${provider}: at its pace, ${expireUnmailed} would reach their 30th day unmailed and be removed before they could confirm.`
    : hold?.reason === "quota"
      ? `${provider}'s daily quota is used: the rest goes out after it. A higher plan or limit sends them sooner.`
      : hold?.reason === "down"
        ? `${provider} is not taking mail: check SMTP_URL and the provider's status; npm run waitlist -- resend-pending tries at once.`
        : null;
  return {
    provider,
    ratePerSecond: limits.ratePerSecond,
    dailyLimit: limits.dailyLimit,
    sentToday,
    hold,
    owed: owed.length,
    clearedBy: owed.length > 0 ? new Date(Math.ceil(last)).toISOString() : null,
    expireUnmailed,
    advice,
  };
}

const count = (n: number) => n.toLocaleString("en-US");
const holdWords = {
  throttle: "asked every sender to slow down",
  quota: "says its daily quota is used",
  down: "is not taking mail",
};
const utc = (ms: number | string) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

/** The outlook as lines of text (stats, the digest): the pace and today's count, a hold, and what is owed. */
export function outlookLines({ provider, ratePerSecond, dailyLimit, sentToday, hold, owed, clearedBy }: MailOutlook) {
  const daily = dailyLimit === null ? "" : `, ${count(dailyLimit)} a day`;
  return [
    `The pace: ${provider}, ${count(ratePerSecond)} a second${daily}; ${count(sentToday)} sent today (UTC)`,
    ...(hold ? [`Held until ${utc(hold.until)}: ${provider} ${holdWords[hold.reason]}`] : []),
    owed === 0
      ? "Confirmations owed: none"
      : `Confirmations owed: ${count(owed)}, the last sent by ${utc(clearedBy!)} at that pace`,
  ];
}
