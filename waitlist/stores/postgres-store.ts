import { Pool } from "pg";
import { migrate } from "./postgres-migrations";
import { SqlStore, type SqlDatabase, type SqlValue } from "./sql-store";
import { StoreError } from "./store";
import type { Departure } from "../signup-life/types";

/** What the store needs of pg's Pool. */
export type PgPool = Pick<Pool, "query" | "end">;

/** An instant as the store interface gives it: pg reads a timestamptz as a Date. */
const isoRow = <T>(row: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(row).map(([name, value]) => [name, value instanceof Date ? value.toISOString() : value]),
  ) as T;

/** The SQL store's database over a pool: every method one statement, atomic without a transaction around it. */
function postgresDatabase(pool: PgPool, endPool: boolean): SqlDatabase {
  const query = async <T>(sql: string, values: readonly SqlValue[] = []) =>
    (await pool.query(sql, [...values])).rows.map((row: Record<string, unknown>) => isoRow<T>(row));
  return {
    query,
    deleteCounted: <T>(deleteSql: string, values: readonly SqlValue[], { how, at, digest }: Departure) => {
      const n = values.length;
      return query<T>(
        `WITH gone AS (${deleteSql}),
         counted AS (INSERT INTO departures (left_at, how, digest)
                     SELECT $${n + 1}, $${n + 2}, CASE WHEN (to_jsonb(gone) ->> 'keepsDigest')::boolean THEN $${n + 3} END
                     FROM gone)
         SELECT * FROM gone`,
        [...values, at, how, digest ?? null],
      );
    },
    close: async () => {
      if (endPool) await pool.end();
    },
  };
}

/** The waitlist in Postgres (DATABASE_URL), over postgres-migrations/' schema. */
export class PostgresStore extends SqlStore {
  constructor(
    pool: PgPool,
    /** Whether close() ends the pool: false when its owner ends it. */
    { endPool = true }: { endPool?: boolean } = {},
  ) {
    super(postgresDatabase(pool, endPool));
  }
}

/** A store over a database URL (DATABASE_URL), its schema brought up to date from `migrations` first. */
export async function openPostgresStore(
  databaseUrl: string,
  { migrations, warn = () => {} }: { migrations: string; warn?: (message: string) => void },
): Promise<PostgresStore> {
  const pool = new Pool({ connectionString: databaseUrl });
  // An idle connection cut off (a restart, a failover) is dropped; unheard, the pool's error would end the process.
  pool.on("error", (error) => warn(`The waitlist's database closed a connection: ${error.message}`));
  try {
    await migrate(pool, migrations);
  } catch (error) {
    await pool.end();
    if (error instanceof StoreError) throw error;
    // Its name and host, never the URL: that may hold the password.
    const { host, pathname } = new URL(databaseUrl);
    const reason = (error as Error).message.replace(/\.?$/, ".");
    throw new StoreError(`Could not open the waitlist's database ${pathname.slice(1)} on ${host}: ${reason}`);
  }
  return new PostgresStore(pool);
}
