// Where the functions keep the list in a run of npm run bench:netlify: Netlify Database (a real Postgres) or Netlify
// Blobs (the local server), each able to count its operations and to be filled fast to a given size.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { projectFolders } from "../../config/folders";
import path from "node:path";
import { Pool } from "pg";
import { BlobsStore, hashOf, rowsPerChunk } from "../../waitlist/stores/blobs-store";
import { migrate } from "../../waitlist/stores/postgres-migrations";
import { PostgresStore } from "../../waitlist/stores/postgres-store";
import type { FullStore } from "../../waitlist/stores/store";
import type { startLocalBlobs } from "../../test/support/blobs";
import { startPostgres } from "../../test/support/postgres";
import type { startNetlifyApi } from "../../test/support/netlify-api";

/** Where the functions keep the list in this run, and what the bench needs of it. */
export interface Backend {
  store: FullStore;
  /** Operations on the store so far: Blobs operations, or SQL statements. */
  ops(): Promise<number>;
  /**
   * Statements Netlify Database has run so far, every one the functions sent (each wakes it), the check a function
   * makes when it opens the waitlist included; undefined on a store without a database.
   */
  databaseStatements?(): Promise<number>;
  /** Fills the list to `n` listed addresses, mailed and confirmed long ago, straight into the store's storage. */
  seedTo(n: number): Promise<void>;
  /** The environment of the founders' commands on this store. */
  foundersEnv: NodeJS.ProcessEnv;
  foundersArgs: string[];
  stop(): Promise<void>;
}

/** Netlify Database: a real Postgres with pg_stat_statements, the schema as Netlify's deploy leaves it. */
export async function postgresBackend(start: number): Promise<Backend> {
  const postgres = await startPostgres({
    settings: ["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all"],
  });
  const url = await postgres.createDatabase();
  const pool = new Pool({ connectionString: url });
  // The server goes at the end of the run, and with it every connection still open: nothing to report then.
  pool.on("error", () => {});
  await migrate(pool, projectFolders.migrations);
  await pool.query("CREATE EXTENSION pg_stat_statements");
  process.env.NETLIFY_DB_URL = url;
  let seeded = 0;
  return {
    store: new PostgresStore(pool, { endPool: false }),
    async ops() {
      const { rows } = await pool.query<{ calls: string | null }>(
        `SELECT sum(calls) AS calls FROM pg_stat_statements
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND query NOT ILIKE '%pg_stat_statements%' AND query NOT ILIKE '%signups LIMIT 0%'`,
      );
      return Number(rows[0]?.calls ?? 0);
    },
    async databaseStatements() {
      const { rows } = await pool.query<{ calls: string | null }>(
        `SELECT sum(calls) AS calls FROM pg_stat_statements
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
           AND query NOT ILIKE '%pg_stat_statements%'`,
      );
      return Number(rows[0]?.calls ?? 0);
    },
    async seedTo(n) {
      if (n <= seeded) return;
      await pool.query(
        `INSERT INTO signups (email, email_key, created_at, source, confirmation_sent_at, opt_in_since, confirmed_at)
         SELECT 'listed' || i || '@example.com', 'listed' || i || '@example.com', at, 'netlify', at, at, at
         FROM generate_series($1::int, $2::int - 1) AS i,
              LATERAL (SELECT to_timestamp(($3::bigint - 2592000000 + i::bigint * 1000) / 1000.0) AS at) AS t`,
        [seeded, n, start],
      );
      await pool.query("ANALYZE signups");
      seeded = n;
    },
    foundersEnv: { DATABASE_URL: url },
    foundersArgs: [],
    async stop() {
      await pool.end();
      await postgres.stop();
    },
  };
}

/** The Blobs store of a site without Netlify Database, reached by the founders through the API stand-in. */
export async function blobsBackend(
  blobs: Awaited<ReturnType<typeof startLocalBlobs>>,
  api: Awaited<ReturnType<typeof startNetlifyApi>>,
  start: number,
): Promise<Backend> {
  const store = new BlobsStore(blobs.store());
  // The store's own format, taken from a record and a ledger blob it wrote: the seed copies it.
  await store.add({ email: "probe@example.com", emailKey: "probe@example.com", source: "netlify" });
  await store.markConfirmationSent("probe@example.com", new Date());
  await store.fold();
  const probeFile = findFile(blobs.directory, `signups/${hashOf("probe@example.com")}`);
  const storeDir = probeFile.slice(0, -`signups/${hashOf("probe@example.com")}`.length);
  const template = JSON.parse(readFileSync(probeFile, "utf8")) as Record<string, unknown>;
  const rowTemplate = (
    JSON.parse(readFileSync(path.join(storeDir, "ledger", "000001"), "utf8")) as {
      rows: Record<string, Record<string, unknown>>;
    }
  ).rows[hashOf("probe@example.com")]!;
  await store.remove("probe@example.com", "operator", new Date());
  rmSync(path.join(storeDir, "departures"), { recursive: true, force: true });
  rmSync(path.join(storeDir, "ledger"), { recursive: true, force: true });
  await store.fold();

  let seeded = 0;
  /** Adds listed addresses, mailed and confirmed long ago, straight into the server's files, a ledger blob per thousand. */
  function seedTo(n: number) {
    mkdirSync(path.join(storeDir, "signups"), { recursive: true });
    mkdirSync(path.join(storeDir, "ledger"), { recursive: true });
    for (let from = seeded; from < n; from += rowsPerChunk) {
      const chunk = String(from / rowsPerChunk + 1).padStart(6, "0");
      const rows: Record<string, unknown> = {};
      for (let i = from; i < Math.min(n, from + rowsPerChunk); i++) {
        const email = `listed${i}@example.com`;
        const at = new Date(start - 30 * 86_400_000 + i * 1000).toISOString();
        const fields = {
          email,
          emailKey: email,
          createdAt: at,
          confirmationSentAt: at,
          optInSince: at,
          confirmedAt: at,
        };
        writeFileSync(path.join(storeDir, "signups", hashOf(email)), JSON.stringify({ ...template, ...fields, chunk }));
        rows[hashOf(email)] = { ...rowTemplate, ...fields };
      }
      writeFileSync(path.join(storeDir, "ledger", chunk), JSON.stringify({ rows }));
    }
    seeded = n;
  }

  return {
    store,
    async ops() {
      await blobs.settled();
      return blobs.operations.length;
    },
    seedTo: async (n) => seedTo(n),
    foundersEnv: { NETLIFY_API_TOKEN: blobs.token, NETLIFY_SITE_ID: blobs.siteID, NETLIFY_API_URL: api.url },
    foundersArgs: ["--netlify"],
    stop: async () => {},
  };
}

/** The file under `root` whose path ends with `suffix`. */
function findFile(root: string, suffix: string): string {
  for (const name of readdirSync(root)) {
    const file = path.join(root, name);
    if (statSync(file).isDirectory()) {
      try {
        return findFile(file, suffix);
      } catch {
        continue;
      }
    }
    if (file.endsWith(suffix)) return file;
  }
  throw new Error(`No ${suffix} under ${root}`);
}
