import { existsSync } from "node:fs";
import { SqliteStore } from "../../waitlist/stores/sqlite-store";
import type { Signup } from "../../waitlist/signup-life/types";

/**
 * Runs `work` on the SQLite store in `dbFile`, opened for it and closed after:
 * a test reads what a server stored through the store's own API, as the
 * founders' commands do, never through its tables. A running server may hold
 * the file too (WAL lets both at it).
 */
export async function withSqliteStore<T>(dbFile: string, work: (store: SqliteStore) => Promise<T>): Promise<T> {
  const store = new SqliteStore(dbFile);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** Every signup in the SQLite store in `dbFile`, oldest first (what `export` writes); none before it exists. */
export function sqliteSignups(dbFile: string): Promise<Signup[]> {
  return existsSync(dbFile) ? withSqliteStore(dbFile, (store) => store.all()) : Promise.resolve([]);
}
