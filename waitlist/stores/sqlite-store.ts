import path from "node:path";
import Database from "better-sqlite3";
import { privateFiles } from "../private-file";
import { migrate } from "./sqlite-migrations";
import { SqlStore, type SqlDatabase, type SqlValue } from "./sql-store";
import { StoreError } from "./store";
import type { Departure } from "../signup-life/types";

/** SQLite takes numbered parameters (?1) by name, and neither booleans nor Dates. */
const bind = (values: readonly SqlValue[]) =>
  Object.fromEntries(values.map((value, n) => [n + 1, typeof value === "boolean" ? Number(value) : value]));

/** The SQL store's database over one better-sqlite3 connection: synchronous, so no two statements interleave. */
function sqliteDatabase(db: Database.Database, file: string): SqlDatabase {
  const prepared = new Map<string, Database.Statement>();
  const statement = (sql: string) => {
    let found = prepared.get(sql);
    if (!found) prepared.set(sql, (found = db.prepare(sql.replace(/\$(\d+)/g, "?$1"))));
    return found;
  };
  const run = <T>(sql: string, values: readonly SqlValue[]) => {
    const one = statement(sql);
    const bound = values.length > 0 ? [bind(values)] : [];
    if (one.reader) return one.all(...bound) as T[];
    one.run(...bound);
    return [];
  };
  return {
    query: async (sql, values = []) => run(sql, values),
    async deleteCounted<T>(deleteSql: string, values: readonly SqlValue[], { how, at, digest }: Departure) {
      const removed = db.transaction(() => {
        const rows = run<T>(deleteSql, values);
        const count = "INSERT INTO departures (left_at, how, digest) VALUES ($1, $2, $3)";
        for (const row of rows as { keepsDigest?: unknown }[])
          run(count, [at, how, row.keepsDigest && digest ? digest : null]);
        return rows;
      })();
      // Also clears the write-ahead log, so the address is gone from the files too.
      if (removed.length > 0 && file !== ":memory:") db.pragma("wal_checkpoint(TRUNCATE)");
      return removed;
    },
    close: async () => {
      if (db.open) db.close();
    },
  };
}

/**
 * The waitlist of npm start and gatsby develop in one SQLite file. WAL with synchronous=FULL: when add() resolves,
 * the row survives a crash or power loss. A removed address is overwritten on disk (secure_delete).
 */
export class SqliteStore extends SqlStore {
  private readonly connection: Database.Database;

  constructor(readonly file: string) {
    // Every address and the link secret are in the file, its WAL and its SHM: this user's only.
    if (file !== ":memory:") privateFiles(path.resolve(file), `${path.resolve(file)}-wal`, `${path.resolve(file)}-shm`);
    const connection = new Database(file);
    for (const setting of ["journal_mode = WAL", "synchronous = FULL", "busy_timeout = 5000", "secure_delete = ON"]) {
      connection.pragma(setting);
    }
    const durable = { journal_mode: file === ":memory:" ? "memory" : "wal", synchronous: 2, busy_timeout: 5000 };
    const found = Object.fromEntries(
      Object.keys(durable).map((name) => [name, connection.pragma(name, { simple: true })]),
    );
    if (JSON.stringify(found) !== JSON.stringify(durable)) {
      connection.close();
      throw new StoreError(`The waitlist store could not be made durable: ${JSON.stringify(found)}.`);
    }
    migrate(connection, file);
    super(sqliteDatabase(connection, file));
    this.connection = connection;
  }

  /** Opens an existing store for reading, or explains what to run when there is none. */
  static openExisting(file: string): SqliteStore {
    const resolved = path.resolve(file);
    try {
      new Database(resolved, { readonly: true, fileMustExist: true }).close();
    } catch {
      throw new StoreError(
        `No waitlist store at ${resolved}. Signups are stored there once the site runs (npm start); set WAITLIST_DB to read another file.`,
      );
    }
    return new SqliteStore(resolved);
  }

  pragma(name: string): unknown {
    return this.connection.pragma(name, { simple: true });
  }
}
