// What the bench must show of the site's mail against a strict provider (issue 60), and of its price: each check with
// what was measured and its mark. Pure, tested in checks.test.ts; report.ts prints a line per check, and --json gives
// them as "checks".

export interface CheckFigures {
  viralMonth: {
    /** Signups not stored or not sent their confirmation exactly once. */
    lost: number;
    /** Confirmations the site refused for good for a throttle or a quota, and messages the provider refused for its quota. */
    refusedForLimits: number;
    refusedForQuota: number;
    /** The provider's throttle replies, and the messages it took. */
    throttled: number;
    sent: number;
  };
  burst: BurstFigures;
  /** The provider as the burst and the months saw it: its connections, what it took twice, whom it refused. */
  provider: BurstProvider;
  outage: { owed: number; clearedMinutes: number | null };
  mailedAfterSuppression: number;
  credits: { idleMonth: number; viralMonth: number; idleMonthAt100k: number };
  smallPlan: {
    acknowledged: number;
    sentOnTheDay: number;
    dailyLimit: number | null;
    refused: number;
    digest: { owed: number | null; expiringNamed: number; expiringAtPace: number | null };
  };
}

export interface BurstFigures {
  signups: number;
  confirmedOnce: number;
  lastConfirmationSeconds: number;
  /** The signup function's instances the burst ran on. */
  instances: number;
}

export interface BurstProvider {
  /** The profile's limit of connections, and the most asked of it at once. */
  connections: number | null;
  maxConnections: number;
  refusedConnections: number;
  refusedForGood: number;
  mailedTwice: number;
}

export interface Check {
  /** What must hold, in a sentence. */
  what: string;
  /** What the run measured, in a few words. */
  measured: string;
  met: boolean;
}

/** The marks: the share of throttle replies, minutes, credits. */
export const marks = {
  throttleShare: 0.01,
  burstSeconds: 180,
  /** The burst runs on at least this many instances of the signup function, as Netlify scales it out. */
  burstInstances: 20,
  outageMinutes: 180,
  idleCredits: 10,
  viralCredits: 250,
  idleAt100kCredits: 10,
} as const;

const percent = (share: number) => `${(share * 100).toFixed(2)} %`;

/** The checks of the viral minute's burst: on many cold instances, the provider's connections kept, all mailed once. */
export function burstChecks(burst: BurstFigures, provider: BurstProvider): Record<string, Check> {
  const { connections } = provider;
  return {
    burstMailed: {
      what: `a burst of ${burst.signups} signups in a minute: all mailed once within ${marks.burstSeconds / 60} minutes of the first`,
      measured: `${burst.confirmedOnce} mailed once, the last ${burst.lastConfirmationSeconds} s after the first signup`,
      met: burst.confirmedOnce === burst.signups && burst.lastConfirmationSeconds <= marks.burstSeconds,
    },
    burstOnManyInstances: {
      what: `the burst ran on at least ${marks.burstInstances} instances of the signup function, each with its own module state`,
      measured: `${burst.instances} instances`,
      met: burst.instances >= marks.burstInstances,
    },
    connectionsWithinLimit: {
      what: `the provider asked for at most its ${connections ?? "unlimited"} connections at once, and refused none`,
      measured: `at most ${provider.maxConnections} at once, ${provider.refusedConnections} refused`,
      met: (connections === null || provider.maxConnections <= connections) && provider.refusedConnections === 0,
    },
    noneMailedTwice: {
      what: "no address sent the same message twice",
      measured: `${provider.mailedTwice} addresses`,
      met: provider.mailedTwice === 0,
    },
    noneRefusedByReplies: {
      what: "nobody refused for good by a reply of the provider's (its replies are all for now)",
      measured: `${provider.refusedForGood} refused`,
      met: provider.refusedForGood === 0,
    },
  };
}

export function benchChecks(figures: CheckFigures): Record<string, Check> {
  const { viralMonth, burst, outage, credits, smallPlan } = figures;
  const throttleShare = viralMonth.sent === 0 ? 0 : viralMonth.throttled / viralMonth.sent;
  const { digest } = smallPlan;
  const owedAtMidnight = smallPlan.acknowledged - smallPlan.sentOnTheDay;
  return {
    viralMonthMailedOnce: {
      what: "the viral month: every signup stored and sent its confirmation once",
      measured: `${viralMonth.lost} lost`,
      met: viralMonth.lost === 0,
    },
    viralMonthNoneRefusedForLimits: {
      what: "the viral month: nobody refused for a throttle or a quota",
      measured: `${viralMonth.refusedForLimits} refused by the site, ${viralMonth.refusedForQuota} messages refused for the provider's quota`,
      met: viralMonth.refusedForLimits === 0 && viralMonth.refusedForQuota === 0,
    },
    viralMonthThrottleReplies: {
      what: `the viral month: throttle replies at most ${percent(marks.throttleShare)} of the messages sent`,
      measured: `${viralMonth.throttled} of ${viralMonth.sent} (${percent(throttleShare)})`,
      met: throttleShare <= marks.throttleShare,
    },
    ...burstChecks(burst, figures.provider),
    outageCleared: {
      what: `a mail outage on the viral day: the ${outage.owed} owed at its end all mailed within ${marks.outageMinutes} minutes`,
      measured: outage.clearedMinutes === null ? "some still owed a day later" : `${outage.clearedMinutes} minutes`,
      met: outage.clearedMinutes !== null && outage.clearedMinutes <= marks.outageMinutes,
    },
    noMailAfterSuppression: {
      what: "the months: no message taken for an address after the site took its bounce or complaint",
      measured: `${figures.mailedAfterSuppression}`,
      met: figures.mailedAfterSuppression === 0,
    },
    idleMonthCredits: {
      what: `an idle month at most ${marks.idleCredits} credits`,
      measured: `${credits.idleMonth}`,
      met: credits.idleMonth <= marks.idleCredits,
    },
    viralMonthCredits: {
      what: `a viral month at most ${marks.viralCredits} credits, the drains and the provider's events counted`,
      measured: `${credits.viralMonth}`,
      met: credits.viralMonth <= marks.viralCredits,
    },
    idleMonthAt100kCredits: {
      what: `an idle month over 100,000 listed at most ${marks.idleAt100kCredits} credits`,
      measured: `${credits.idleMonthAt100k}`,
      met: credits.idleMonthAt100k <= marks.idleAt100kCredits,
    },
    smallPlanNobodyRefused: {
      what: "a small plan: no message refused for the provider's daily quota, on the day of the signups or the next",
      measured: `${smallPlan.refused} refused`,
      met: smallPlan.refused === 0,
    },
    smallPlanWithinItsDay: {
      what: `a small plan: at most its daily limit (${smallPlan.dailyLimit ?? "none"}) sent on the day of the signups`,
      measured: `${smallPlan.sentOnTheDay} sent`,
      met: smallPlan.dailyLimit === null || smallPlan.sentOnTheDay <= smallPlan.dailyLimit,
    },
    smallPlanDigestNamesOwed: {
      what: "a small plan: the next day's digest names the confirmations owed, and how many would reach their 30th day unmailed at the pace",
      measured: `owed ${digest.owed ?? "not named"} (${owedAtMidnight} owed at midnight); ${digest.expiringNamed} named as reaching their 30th day unmailed (${digest.expiringAtPace ?? "?"} at the pace)`,
      met: digest.owed === owedAtMidnight && digest.expiringNamed === digest.expiringAtPace,
    },
  };
}
