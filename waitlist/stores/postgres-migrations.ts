import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Pool } from "pg";
import { StoreError } from "./store";

/*
 * The Postgres schema is plain SQL in postgres-migrations/, applied here in name order, each once, recorded in
 * netlify.migrations by name without ".sql": the name Netlify Database's tooling gave it, so a database it migrated
 * is current now.
 */
/** Any number, so two processes of this site take the same lock and no other application's. */
const lockKey = 0x74616e64; // "tand"

const trackingTable = "netlify.migrations";

/** The migrations in `dir` (the adapter names it: projectFolders.migrations), in name order. */
export function readMigrations(dir: string): { name: string; sql: string }[] {
  return readdirSync(dir)
    .filter((file) => /^\d{4}_[\w-]+\.sql$/.test(file))
    .sort()
    .map((file) => ({ name: file.slice(0, -".sql".length), sql: readFileSync(path.join(dir, file), "utf8") }));
}

/** Applies what is not yet applied in one transaction under an advisory lock; resolves with the names applied. */
export async function migrate(pool: Pick<Pool, "connect">, dir: string): Promise<string[]> {
  const migrations = readMigrations(dir);
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock($1)", [lockKey]);
    await client.query(
      `CREATE SCHEMA IF NOT EXISTS netlify;
       CREATE TABLE IF NOT EXISTS ${trackingTable} (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    // This site's first Postgres version kept its own record, by file name: carried over once.
    await client.query(
      `DO $$ BEGIN
         IF to_regclass('public.waitlist_migrations') IS NOT NULL THEN
           INSERT INTO ${trackingTable} (name, applied_at)
             SELECT regexp_replace(name, '\\.sql$', ''), applied_at FROM public.waitlist_migrations
             ON CONFLICT (name) DO NOTHING;
           DROP TABLE public.waitlist_migrations;
         END IF;
       END $$`,
    );
    const done = new Set(
      (await client.query<{ name: string }>(`SELECT name FROM ${trackingTable}`)).rows.map((row) => row.name),
    );
    const known = new Set(migrations.map((one) => one.name));
    const unknown = [...done].filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new StoreError(
        `The database was migrated by a newer version (${unknown.join(", ")}); update the site before using it.`,
      );
    }
    const applied: string[] = [];
    for (const { name, sql } of migrations) {
      if (done.has(name)) continue;
      await client.query(sql);
      await client.query(`INSERT INTO ${trackingTable} (name) VALUES ($1)`, [name]);
      applied.push(name);
    }
    await client.query("COMMIT");
    return applied;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
