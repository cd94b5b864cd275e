import {
  awakeStretches,
  databaseMeter,
  monthCredits,
  type MonthMeters,
  scheduledAsRequests,
  visitCredits,
} from "./credits";

const minute = 60_000;
const hour = 60 * minute;
const at = (ms: number) => ({ from: ms, to: ms });
const nothing: MonthMeters = { functionMs: 0, requests: 0, bytes: 0, databaseQueries: [], productionDeploys: 0 };

describe("the database's wake and sleep", () => {
  it("keeps it awake 5 minutes after a lone query", () => {
    expect(awakeStretches([at(0)])).toEqual([{ from: 0, to: 5 * minute }]);
  });

  it("makes one stretch of queries less than 5 minutes apart, until 5 minutes after the last", () => {
    expect(awakeStretches([at(3 * minute), at(0), at(7 * minute)])).toEqual([{ from: 0, to: 12 * minute }]);
  });

  it("lets it sleep between queries more than 5 minutes apart, and a query wakes it again", () => {
    expect(awakeStretches([at(0), at(6 * minute)])).toEqual([
      { from: 0, to: 5 * minute },
      { from: 6 * minute, to: 11 * minute },
    ]);
  });

  it("counts a long run of queries from its first to 5 minutes after its last", () => {
    expect(awakeStretches([{ from: 0, to: hour }, at(hour + 4 * minute)])).toEqual([
      { from: 0, to: hour + 9 * minute },
    ]);
  });

  it("bills 1 compute unit at 10 credits an hour for every hour awake: a query a day is 25 credits a month", () => {
    const daily = Array.from({ length: 30 }, (_, day) => at(day * 24 * hour));
    expect(databaseMeter(daily)).toEqual({ wakes: 30, awakeHours: 2.5, credits: 25 });
  });

  it("bills a query every 5 minutes all month as a database that never sleeps: 7,200 credits", () => {
    const sweeps = Array.from({ length: 30 * 288 }, (_, i) => at(i * 5 * minute));
    const { wakes, credits } = databaseMeter(sweeps);
    expect(wakes).toBe(1);
    expect(credits).toBeCloseTo(7200, 6);
  });
});

describe("a month's credits", () => {
  it("bills function run time at 1 GB, 10 credits a GB-hour", () => {
    expect(monthCredits({ ...nothing, functionMs: 3 * hour })).toMatchObject({ compute: 30, total: 30 });
  });

  it("bills 2 credits per 10,000 web requests, 20 per GB sent and 15 a production deploy", () => {
    expect(monthCredits({ ...nothing, requests: 25_000 })).toMatchObject({ requests: 5, total: 5 });
    expect(monthCredits({ ...nothing, bytes: 2.5e9 })).toMatchObject({ bandwidth: 50, total: 50 });
    expect(monthCredits({ ...nothing, productionDeploys: 4 })).toMatchObject({ deploys: 60, total: 60 });
  });

  it("adds every meter into the total, the database's included, and says what each measured", () => {
    const credits = monthCredits({
      functionMs: 360_000,
      requests: 10_000,
      bytes: 1e8,
      databaseQueries: [at(0)],
      productionDeploys: 1,
    });
    expect(credits).toEqual({
      total: 20.83,
      compute: 1,
      requests: 2,
      bandwidth: 2,
      database: 0.83,
      deploys: 15,
      meters: {
        gbHours: 0.1,
        webRequests: 10_000,
        bandwidthGb: 0.1,
        databaseAwakeHours: 0.08,
        databaseWakes: 1,
        productionDeploys: 1,
      },
    });
  });
});

describe("scheduled runs, counted as web requests or not", () => {
  it("takes the scheduled invocations out of the web requests, and nothing else", () => {
    // A month of sweeps and daily passes (8,670) beside 1,330 requests of visitors and functions.
    const month = { ...nothing, functionMs: 3 * hour, requests: 10_000, scheduledInvocations: 8_670 };
    const { counted, notCounted } = scheduledAsRequests(month);
    expect(counted).toMatchObject({ requests: 2, compute: 30, total: 32 });
    expect(notCounted).toMatchObject({ requests: 0.27, compute: 30, total: 30.27 });
    expect(notCounted.meters.webRequests).toBe(1_330);
  });

  it("prices a month without scheduled invocations the same both ways", () => {
    const { counted, notCounted } = scheduledAsRequests({ ...nothing, requests: 5_000 });
    expect(notCounted).toEqual(counted);
  });
});

describe("a visit's credits", () => {
  it("prices a visit's requests at 2 per 10,000 and its bytes at 20 per GB", () => {
    // 8 requests and 48 KB: 0.0016 + 0.00096.
    expect(visitCredits({ requests: 8, bytes: 48_000 })).toBeCloseTo(0.00256, 10);
    expect(visitCredits({ requests: 10_000, bytes: 0 })).toBe(2);
    expect(visitCredits({ requests: 0, bytes: 1e9 })).toBe(20);
  });
});
