import { Client, Pool } from "pg";
import { suitePostgres } from "../../test/support/postgres";
import { until } from "../../test/support/until";
import { projectFolders } from "../../config/folders";
import { migrate, readMigrations } from "./postgres-migrations";
import { openPostgresStore, PostgresStore } from "./postgres-store";
import { describeStoreContract, type StoreUnderTest } from "./store.contract";

/*
 * The contract suite and the races that "once" must win, against a real
 * Postgres (test/support/postgres.ts): one server for this file, a fresh
 * database for each test.
 */

const postgres = suitePostgres();

const freshDatabase = () => postgres.createMigratedDatabase();

const postgresHarness = (): StoreUnderTest => {
  let url: string | undefined;
  const opened: PostgresStore[] = [];
  const open = async () => {
    const store = new PostgresStore(new Pool({ connectionString: url }));
    opened.push(store);
    return store;
  };
  return {
    open: async () => {
      url = await freshDatabase();
      return open();
    },
    reopen: open,
    snapshot: async () => {
      const pool = new Pool({ connectionString: url });
      try {
        const tables = await pool.query<{ name: string }>(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
        );
        // xmin changes with every write of a row, even one that leaves its values as they were.
        const each = await Promise.all(
          tables.rows.map(async ({ name }) => [
            name,
            (await pool.query(`SELECT xmin::text AS xmin, * FROM "${name}"`)).rows
              .map((row) => JSON.stringify(row))
              .sort(),
          ]),
        );
        return Object.fromEntries(each);
      } finally {
        await pool.end();
      }
    },
    cleanup: async () => {},
  };
};
describeStoreContract("Postgres", postgresHarness);

describe("PostgresStore against a real Postgres", () => {
  let url: string;
  let stores: PostgresStore[];
  const open = () => {
    const store = new PostgresStore(new Pool({ connectionString: url, max: 20 }));
    stores.push(store);
    return store;
  };
  const now = new Date("2025-06-01T12:00:00Z");
  const signup = (email: string, at = now) => ({ email, emailKey: email.toLowerCase(), source: "start" as const, at });

  beforeEach(async () => {
    url = await freshDatabase();
    stores = [];
  });

  /**
   * Starts `race` while another session holds what it needs (`hold`: a row lock, an uncommitted insert), and lets go
   * once `waiting` of its statements wait for it: they all start from the same state, and then meet at once.
   */
  async function raceFromOneState<T>(hold: string, waiting: number, race: () => Promise<T>): Promise<T> {
    const holder = new Client({ connectionString: url });
    // Another session looks: pg_stat_activity stays as it was for the rest of a transaction that read it.
    const watcher = new Client({ connectionString: url });
    await Promise.all([holder.connect(), watcher.connect()]);
    try {
      await holder.query("BEGIN");
      await holder.query(hold);
      const result = race();
      await until(async () => {
        const { rows } = await watcher.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND wait_event_type = 'Lock'`,
        );
        return rows[0]!.n >= waiting;
      }, 4_000);
      await holder.query("ROLLBACK");
      return await result;
    } finally {
      await Promise.all([holder.end(), watcher.end()]);
    }
  }
  afterEach(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });

  it("stores 20 simultaneous signups of one address once, from two pools", async () => {
    const [a, b] = [open(), open()];
    // Each waits on the unique key behind an insert not yet committed, which is then rolled back.
    const results = await raceFromOneState(
      "INSERT INTO signups (email, email_key, created_at, source) VALUES ('x', 'race@example.com', now(), 'start')",
      20,
      () =>
        Promise.all(
          Array.from({ length: 20 }, (_, n) =>
            (n % 2 ? a : b).add(signup("race@example.com", new Date(now.getTime() + n))),
          ),
        ),
    );
    expect(results.filter((result) => result.added)).toHaveLength(1);
    expect(await a.count()).toBe(1);
    expect(await a.pendingConfirmations()).toHaveLength(1);
  });

  it("has one first confirmation of 20 simultaneous confirms of one token", async () => {
    const [a, b] = [open(), open()];
    await a.add(signup("ada@example.com"));
    const results = await raceFromOneState("SELECT 1 FROM signups FOR UPDATE", 20, () =>
      Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          (n % 2 ? a : b).confirm("ada@example.com", {
            createdAt: now.toISOString(),
            at: new Date(now.getTime() + 1_000 + n),
            privacyPolicy: `policy ${n}`,
          }),
        ),
      ),
    );
    expect(results.filter((result) => result?.first)).toHaveLength(1);
    // Every answer names the one confirmation kept.
    const kept = (await a.all())[0]!;
    expect(new Set(results.map((result) => result?.confirmedAt))).toEqual(new Set([kept.confirmedAt]));
    const first = results.findIndex((result) => result?.first);
    expect(kept.privacyPolicyAtConfirm).toBe(`policy ${first}`);
  });

  it("keeps a leave racing a confirm consistent: either confirmed then gone, or gone and never confirmed", async () => {
    const [a, b] = [open(), open()];
    for (let round = 0; round < 10; round++) {
      const email = `race${round}@example.com`;
      await a.add(signup(email));
      // Half the rounds start the two from one state; the others as they come.
      const both = () =>
        Promise.all([
          a.confirm(email, { createdAt: now.toISOString(), at: new Date(now.getTime() + 1), privacyPolicy: null }),
          b.remove(email, "link", new Date(now.getTime() + 2), now.toISOString()),
        ]);
      const [confirmed, removed] =
        round % 2 ? await both() : await raceFromOneState("SELECT 1 FROM signups FOR UPDATE", 2, both);
      expect(removed).toEqual({ email, createdAt: now.toISOString() });
      // A confirm that came first was told so; one that came after the leave found nothing. Either way: gone.
      if (confirmed) expect(confirmed.first).toBe(true);
      await expect(a.lookup(email)).resolves.toBeUndefined();
    }
    expect(await a.count()).toBe(0);
    expect(await a.departures()).toBe(10);
  });

  it("gives an owed mail to one of two sweeps claiming it at once", async () => {
    const [a, b] = [open(), open()];
    for (let n = 0; n < 10; n++) await a.add(signup(`owed${n}@example.com`, new Date(now.getTime() + n)));
    const due = await a.dueConfirmations(now, 100);
    const claims = await raceFromOneState("SELECT 1 FROM signups FOR UPDATE", 20, () =>
      Promise.all(
        [a, b].flatMap((store) =>
          due.map(async ({ emailKey }) => ({
            emailKey,
            attempt: await store.claimConfirmation(emailKey, { now, leaseMs: 60_000 }),
          })),
        ),
      ),
    );
    const won = claims.filter((claim) => claim.attempt !== undefined);
    expect(won.map((claim) => claim.emailKey).sort()).toEqual(due.map((owed) => owed.emailKey).sort());
    expect(won.every((claim) => claim.attempt === 1)).toBe(true);
  });

  it("makes one secret when two stores ask for it at once", async () => {
    const [a, b] = [open(), open()];
    const secrets = await Promise.all([a, b, a, b].map((store, n) => store.secret("leave", () => `secret-${n}`)));
    expect(new Set(secrets).size).toBe(1);
  });

  it("reads what the sweep and the retention need through their partial indexes, in its own statements", async () => {
    const pool = new Pool({ connectionString: url });
    // The store's statements, as it sends them, each then asked of the planner with its values.
    const sent: { sql: string; values?: unknown[] }[] = [];
    const spy = { query: (sql: string, values?: unknown[]) => (sent.push({ sql, values }), pool.query(sql, values)) };
    const store = new PostgresStore({ ...spy, end: () => pool.end() } as never, { endPool: false });
    try {
      await store.add(signup("a@example.com"));
      const plan = async (read: () => Promise<unknown>) => {
        sent.length = 0;
        await read();
        const client = await pool.connect();
        try {
          // An empty table is read whole whatever its indexes: this asks whether the index can serve the query.
          await client.query("SET enable_seqscan = off");
          const { sql, values } = sent[0]!;
          return (await client.query(`EXPLAIN ${sql}`, values)).rows
            .map((row: Record<string, string>) => row["QUERY PLAN"])
            .join("\n");
        } finally {
          client.release();
        }
      };
      expect(await plan(() => store.dueConfirmations(new Date(), 10))).toContain("signups_owed");
      expect(await plan(() => store.pendingConfirmations())).toContain("signups_owed");
      expect(await plan(() => store.expiredUnconfirmed(new Date(), 10))).toContain("signups_unconfirmed");
    } finally {
      await pool.end();
    }
  });
});

describe("Postgres migrations", () => {
  it("apply once, in order, when two servers start at the same moment", async () => {
    const url = await postgres.createDatabase();
    const pools = [new Pool({ connectionString: url }), new Pool({ connectionString: url })];
    try {
      const applied = await Promise.all(pools.map((pool) => migrate(pool, projectFolders.migrations)));
      const names = readMigrations(projectFolders.migrations).map((one) => one.name);
      expect(applied.flat().sort()).toEqual(names);
      expect([...applied].sort((x, y) => y.length - x.length)).toEqual([names, []]);
      await expect(migrate(pools[0]!, projectFolders.migrations)).resolves.toEqual([]);
      const recorded = await pools[0]!.query("SELECT name FROM netlify.migrations ORDER BY name");
      expect(recorded.rows.map((row: { name: string }) => row.name)).toEqual(names);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  });

  it("refuse a database migrated by a newer version", async () => {
    const url = await freshDatabase();
    const pool = new Pool({ connectionString: url });
    try {
      await pool.query("INSERT INTO netlify.migrations (name) VALUES ('9999_future')");
      await expect(migrate(pool, projectFolders.migrations)).rejects.toThrow(/newer version \(9999_future\)/);
    } finally {
      await pool.end();
    }
  });

  it("take over the record this site's first Postgres version kept, and apply nothing twice", async () => {
    const url = await postgres.createDatabase();
    const pool = new Pool({ connectionString: url });
    try {
      // That version's schema: the first three migrations, recorded by file name in a table of its own.
      const [first, second, third] = readMigrations(projectFolders.migrations);
      await pool.query(
        "CREATE TABLE waitlist_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
      );
      for (const { name, sql } of [first!, second!, third!]) {
        await pool.query(sql);
        await pool.query("INSERT INTO waitlist_migrations (name) VALUES ($1)", [`${name}.sql`]);
      }
      const applied = await migrate(pool, projectFolders.migrations);
      expect(applied).toEqual(
        readMigrations(projectFolders.migrations)
          .slice(3)
          .map((one) => one.name),
      );
      const recorded = await pool.query("SELECT name FROM netlify.migrations ORDER BY name");
      expect(recorded.rows.map((row: { name: string }) => row.name)).toEqual(
        readMigrations(projectFolders.migrations).map((one) => one.name),
      );
      expect((await pool.query("SELECT to_regclass('public.waitlist_migrations') AS old")).rows).toEqual([
        { old: null },
      ]);
    } finally {
      await pool.end();
    }
  });
});

describe("openPostgresStore", () => {
  it("outlives a restart of the database's sessions: an idle connection cut off is dropped, not thrown", async () => {
    const url = await postgres.createDatabase();
    const warnings: string[] = [];
    const store = await openPostgresStore(url, {
      migrations: projectFolders.migrations,
      warn: (message) => warnings.push(message),
    });
    try {
      await store.add({ email: "a@example.com", emailKey: "a@example.com", source: "start" });
      const admin = new Client({ connectionString: url });
      await admin.connect();
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()");
      await admin.end();
      await until(() => warnings.length > 0, 4_000);
      expect(warnings[0]).toMatch(/^The waitlist's database closed a connection: terminating connection/);
      await expect(store.count()).resolves.toBe(1);
    } finally {
      await store.close();
    }
  });
});
