import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { projectFolders } from "../../config/folders";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client, Pool } from "pg";
import { migrate } from "../../waitlist/stores/postgres-migrations";
import { PostgresStore } from "../../waitlist/stores/postgres-store";
import { freePort } from "./free-port";
import { patience } from "./patience";
import { until } from "./until";

/*
 * A real Postgres for a test file: Debian's binaries (apt-get install
 * postgresql; .ci/run does), a cluster in a temporary folder, listening on a
 * free port of 127.0.0.1 with trust authentication, and gone when stopped.
 * Postgres refuses to run as root: under root it runs as the postgres user.
 */

function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((version) => existsSync(path.join(root, version, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) throw new Error("No Postgres in /usr/lib/postgresql: apt-get install postgresql");
  return path.join(root, versions[0]!, "bin");
}

export interface TestPostgres {
  port: number;
  /** A new, empty database; resolves with its URL. */
  createDatabase(): Promise<string>;
  /** A new database with the waitlist's schema, as Netlify's deploy or a server's start leaves it; resolves with its URL. */
  createMigratedDatabase(): Promise<string>;
  stop(): Promise<void>;
}

/** `settings`: more server settings (`name=value`), such as a preloaded extension a benchmark counts with. */
export async function startPostgres({ settings = [] }: { settings?: string[] } = {}): Promise<TestPostgres> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), "postgres-"));
  const asRoot = process.getuid?.() === 0;
  // setpriv execs: the child's pid is the server's own, so a signal reaches it.
  const command = (file: string, args: string[]): [string, string[]] =>
    asRoot
      ? ["setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", "--", path.join(bin, file), ...args]]
      : [path.join(bin, file), args];
  if (asRoot) {
    const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
    chownSync(dir, id("-u"), id("-g"));
  }
  const data = path.join(dir, "data");
  const init = spawnSync(
    ...command("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"]),
    { encoding: "utf8" },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.error?.message}`);

  const port = await freePort();
  const server: ChildProcess = spawn(
    ...command("postgres", [
      "-D",
      data,
      "-p",
      String(port),
      "-k",
      dir,
      "-c",
      "listen_addresses=127.0.0.1",
      // Throwaway data: no waiting for the disk.
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
      "-c",
      "max_connections=200",
      ...settings.flatMap((setting) => ["-c", setting]),
    ]),
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  server.stderr!.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
  const kill = () => server.kill("SIGINT");
  process.once("exit", kill);

  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const accepts = async () => {
    if (server.exitCode !== null) throw new Error(`postgres exited: ${log}`);
    const client = new Client({ connectionString: url("postgres") });
    try {
      await client.connect();
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => {});
    }
  };
  await until(accepts, 20_000).catch((error: Error) => {
    kill();
    throw new Error(`postgres did not start: ${error.message}\n${log}`);
  });

  let databases = 0;
  const postgres: TestPostgres = {
    port,
    async createDatabase() {
      const name = `test_${++databases}`;
      const client = new Client({ connectionString: url("postgres") });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${name}`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async createMigratedDatabase() {
      const database = await postgres.createDatabase();
      const pool = new Pool({ connectionString: database });
      try {
        await migrate(pool, projectFolders.migrations);
      } finally {
        await pool.end();
      }
      return database;
    },
    async stop() {
      process.removeListener("exit", kill);
      if (server.exitCode === null) {
        kill();
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return postgres;
}

/**
 * One Postgres for the suite it is called in, at its top level: started
 * before its first test, stopped after its last. The methods reach it once
 * it runs.
 */
export function suitePostgres(): TestPostgres {
  let started: TestPostgres | undefined;
  beforeAll(async () => {
    started = await startPostgres();
  }, patience(30_000));
  afterAll(() => started?.stop());
  const running = () => {
    if (!started) throw new Error("Postgres has not started: call suitePostgres() at the top level of a suite.");
    return started;
  };
  return {
    get port() {
      return running().port;
    },
    createDatabase: () => running().createDatabase(),
    createMigratedDatabase: () => running().createMigratedDatabase(),
    stop: () => running().stop(),
  };
}

/**
 * Runs `work` on the waitlist's store over the database at `url` (a server's
 * or the functions', running or not), connected for it and closed after: a
 * test reads what was stored through the store's own API, never its tables.
 */
export async function withPostgresStore<T>(url: string, work: (store: PostgresStore) => Promise<T>): Promise<T> {
  const store = new PostgresStore(new Pool({ connectionString: url }));
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
