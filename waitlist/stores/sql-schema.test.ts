import Database from "better-sqlite3";
import { Client } from "pg";
import { suitePostgres } from "../../test/support/postgres";
import { migrate } from "./sqlite-migrations";

/*
 * SQLite's schema (sqlite-migrations.ts) and Postgres's (postgres-migrations/) are two histories of one schema: the
 * same tables, columns and indexes, each index over the same columns and rows. This fails when they drift.
 */

const postgres = suitePostgres();

/** An index as both databases can say it: its columns and its WHERE, without quotes, parentheses or case. */
const shape = (definition: string) => {
  const [, columns, where = ""] = /\(([^)]*)\)(?:\s+WHERE\s+(.*))?$/is.exec(definition.replace(/\s+/g, " ").trim())!;
  const plain = (text: string) => text.replace(/[()"]/g, "").replace(/\s+/g, " ").trim().toLowerCase();
  return `${plain(columns!)}${where ? ` where ${plain(where)}` : ""}`;
};

async function sqliteSchema() {
  const db = new Database(":memory:");
  migrate(db, ":memory:");
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
    name: string;
  }[];
  const columns = Object.fromEntries(
    tables.map(({ name }) => [
      name,
      (db.prepare(`PRAGMA table_info(${name})`).all() as { name: string }[]).map((one) => one.name).sort(),
    ]),
  );
  const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as {
    name: string;
    sql: string;
  }[];
  db.close();
  return { columns, indexes: Object.fromEntries(indexes.map(({ name, sql }) => [name, shape(sql)])) };
}

async function postgresSchema() {
  const client = new Client({ connectionString: await postgres.createMigratedDatabase() });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string; column_name: string }>(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public'",
    );
    const columns: Record<string, string[]> = {};
    for (const row of rows) (columns[row.table_name] ??= []).push(row.column_name);
    for (const names of Object.values(columns)) names.sort();
    // Primary keys and UNIQUE columns are each database's own (SQLite's are not in sqlite_master's sql).
    const indexes = await client.query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexname !~ '_(pkey|key)$'",
    );
    return {
      columns: Object.fromEntries(Object.entries(columns).sort()),
      indexes: Object.fromEntries(indexes.rows.map(({ indexname, indexdef }) => [indexname, shape(indexdef)])),
    };
  } finally {
    await client.end();
  }
}

describe("the SQL schema", () => {
  it("is the same in SQLite and Postgres: tables, columns and indexes", async () => {
    const [sqlite, pg] = await Promise.all([sqliteSchema(), postgresSchema()]);
    expect(sqlite.columns).toEqual(pg.columns);
    expect(sqlite.indexes).toEqual(pg.indexes);
  });
});
