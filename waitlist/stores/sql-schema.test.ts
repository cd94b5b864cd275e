import { readFileSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { Client } from "pg";
import { suitePostgres } from "../../test/support/postgres";
import { departureKinds, letInMailStates, signupSources, signupStates } from "../signup-life/types";
import { migrate } from "./sqlite-migrations";

/*
 * Each dialect's schema is readable in one file (sqlite-schema.sql, postgres-schema.sql) and built by its history of
 * migrations (sqlite-migrations.ts, postgres-migrations/): these hold the file to what the history builds, the two
 * dialects to the same tables, columns and indexes, and every CHECK to signup-life's enumerations.
 */

const postgres = suitePostgres();
const schemaFile = (name: string) => readFileSync(path.join(__dirname, name), "utf8");

/** A list in a CHECK or an index's WHERE as both databases can say it: `x IN ('a', 'b')`, lower case, unquoted. */
const plain = (text: string) =>
  text
    .replace(/\(?(\w+) = ANY \(ARRAY\[([^\]]*)\]\)\)?/gi, (_, column: string, list: string) => {
      return `${column} in (${list.replace(/::text/g, "")})`;
    })
    // Postgres says a text constant's type: 'undeliverable'::text.
    .replace(/('[^']*')::text/g, "$1")
    .replace(/[()"]/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
/** An index as both can say it: its columns and its WHERE. */
const shape = (definition: string) => {
  const [, columns, where = ""] = /\(([^)]*)\)(?:\s+WHERE\s+(.*))?$/is.exec(definition.replace(/\s+/g, " ").trim())!;
  return `${plain(columns!)}${where ? ` where ${plain(where)}` : ""}`;
};
/** Every `column IN (...)` CHECK of a table's definition, as the column and its values in order. */
const checks = (sql: string) =>
  Object.fromEntries(
    [...plain(sql).matchAll(/check (\w+) in ((?:'[^']*',? ?)+)/g)].map(([, column, list]) => [
      column,
      [...list!.matchAll(/'([^']*)'/g)].map((value) => value[1]),
    ]),
  );

function sqliteCatalog(db: Database.Database) {
  const all = <T>(sql: string) => db.prepare(sql).all() as T[];
  const tables = all<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'table'");
  return {
    columns: Object.fromEntries(
      tables.map(({ name }) => [
        name,
        all<{ name: string }>(`PRAGMA table_info(${name})`)
          .map(({ cid: _cid, ...column }: { cid?: number; name: string }) => column)
          .sort((a, b) => a.name.localeCompare(b.name)),
      ]),
    ),
    checks: Object.fromEntries(tables.map(({ name, sql }) => [name, checks(sql)])),
    indexes: Object.fromEntries(
      all<{ name: string; sql: string }>(
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL",
      ).map(({ name, sql }) => [name, shape(sql)]),
    ),
  };
}

function sqliteFrom(build: (db: Database.Database) => void) {
  const db = new Database(":memory:");
  try {
    build(db);
    return sqliteCatalog(db);
  } finally {
    db.close();
  }
}

async function postgresCatalog(url: string) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const rows = async <T>(sql: string) => (await client.query<T & object>(sql)).rows;
    const columns = await rows<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity
       FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, column_name`,
    );
    const constraints = await rows<{ table_name: string; kind: string; definition: string }>(
      `SELECT conrelid::regclass::text AS table_name, contype AS kind, pg_get_constraintdef(oid) AS definition
       FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2, 3`,
    );
    const indexes = await rows<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname",
    );
    const byTable = <T extends { table_name: string }>(list: T[]) => {
      const tables: Record<string, Omit<T, "table_name">[]> = {};
      for (const { table_name, ...rest } of list) (tables[table_name] ??= []).push(rest);
      return tables;
    };
    return {
      columns: byTable(columns),
      constraints: byTable(constraints),
      checks: Object.fromEntries(
        Object.entries(byTable(constraints)).map(([table, list]) => [
          table,
          checks(list.map(({ definition }) => definition).join(", ")),
        ]),
      ),
      indexes: Object.fromEntries(indexes.map(({ indexname, indexdef }) => [indexname, indexdef])),
    };
  } finally {
    await client.end();
  }
}

async function postgresFromSchema() {
  const url = await postgres.createDatabase();
  const client = new Client({ connectionString: url });
  await client.connect();
  await client.query(schemaFile("postgres-schema.sql")).finally(() => client.end());
  return postgresCatalog(url);
}

describe("the SQL schema", () => {
  it("is in sqlite-schema.sql as SQLite's migrations build it: columns, CHECKs and indexes", () => {
    const built = sqliteFrom((db) => migrate(db, ":memory:"));
    expect(sqliteFrom((db) => db.exec(schemaFile("sqlite-schema.sql")))).toEqual(built);
  });

  it("is in postgres-schema.sql as Postgres's migrations build it: columns, constraints and indexes", async () => {
    const built = await postgresCatalog(await postgres.createMigratedDatabase());
    expect(await postgresFromSchema()).toEqual(built);
  });

  it("is the same in SQLite and Postgres: tables, columns and indexes", async () => {
    const sqlite = sqliteFrom((db) => migrate(db, ":memory:"));
    const pg = await postgresCatalog(await postgres.createMigratedDatabase());
    const names = (tables: Record<string, { name?: string; column_name?: string }[]>) =>
      Object.fromEntries(
        Object.entries(tables).map(([table, columns]) => [
          table,
          columns.map((column) => column.name ?? column.column_name).sort(),
        ]),
      );
    expect(names(sqlite.columns)).toEqual(names(pg.columns));
    // Primary keys and UNIQUE columns are each database's own (SQLite's are not in sqlite_master's sql).
    const pgIndexes = Object.fromEntries(
      Object.entries(pg.indexes)
        .filter(([name]) => !/_(pkey|key)$/.test(name))
        .map(([name, definition]) => [name, shape(definition)]),
    );
    expect(sqlite.indexes).toEqual(pgIndexes);
  });

  it("allows in each enumerated column exactly the values of signup-life's types", async () => {
    const pg = await postgresCatalog(await postgres.createMigratedDatabase());
    const sqlite = sqliteFrom((db) => migrate(db, ":memory:"));
    for (const dialect of [pg.checks, sqlite.checks]) {
      expect(dialect.signups!.state).toEqual([...signupStates]);
      expect(dialect.signups!.let_in_mail).toEqual([...letInMailStates]);
      expect(dialect.departures!.how).toEqual([...departureKinds]);
    }
    expect(pg.checks.signups!.source).toEqual([...signupSources]);
    // SQLite's store is npm start's and gatsby develop's only: the sources of those two.
    expect(sqlite.checks.signups!.source).toEqual(signupSources.filter((one) => one === "develop" || one === "start"));
  });
});
