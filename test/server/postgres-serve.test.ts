import { existsSync, mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { run } from "../../cli/run";
import { outboxFiles } from "../support/outbox";
import { suitePostgres, withPostgresStore } from "../support/postgres";
import { until } from "../support/until";
import { formType, removeDir, request, signupBody, writePublicDir } from "../support/harness";
import { runServe, spawnServe } from "../support/process";
import { patience } from "../support/patience";

jest.setTimeout(patience(60_000));

const postgres = suitePostgres();
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "postgres-serve-"));
  writePublicDir(path.join(dir, "public"));
});
afterEach(() => removeDir(dir));

describe("npm start with DATABASE_URL", () => {
  it("migrates the database, stores a signup there through HTTP and mails its confirmation", async () => {
    // Trust authentication ignores the password: here it only shows that the server never prints it.
    const url = (await postgres.createDatabase()).replace("postgres@", "postgres:hunter2-not-printed@");
    const server = await spawnServe({
      PUBLIC_DIR: path.join(dir, "public"),
      WAITLIST_DB: path.join(dir, "data", "waitlist.db"),
      OUTBOX_DIR: path.join(dir, "outbox"),
      DATABASE_URL: url,
      CONFIRMATION_SWEEP_SECONDS: "1",
    });
    try {
      const reply = await request(`${server.url}/`, {
        method: "POST",
        headers: { ...formType, Accept: "text/plain" },
        body: signupBody("pg@example.com"),
      });
      expect(reply.status).toBe(200);
      await withPostgresStore(url, async (store) => {
        expect((await store.all()).map((row) => [row.email, row.source])).toEqual([["pg@example.com", "start"]]);
        await until(async () => (await store.confirmationCounts()).sent === 1, 20_000);
      });
      expect(outboxFiles(path.join(dir, "outbox"))).toHaveLength(1);
      expect(existsSync(path.join(dir, "data", "waitlist.db"))).toBe(false);
      expect(server.output()).toMatch(/stored in the Postgres database test_\d+ on 127\.0\.0\.1:\d+/);
      expect(server.output()).not.toContain("hunter2");
      // The founders' commands read the same database.
      await expect(run(["count"], { DATABASE_URL: url })).resolves.toMatch(/^1 address on the waitlist/);
    } finally {
      await server.stop();
    }
  });

  it("says in one line which database it could not reach, without its password", async () => {
    const { code, output } = await runServe({
      PUBLIC_DIR: path.join(dir, "public"),
      DATABASE_URL: `postgres://postgres:hunter2-not-printed@127.0.0.1:${postgres.port}/no_such_database`,
    });
    expect(code).toBe(1);
    expect(output.trim()).toMatch(
      new RegExp(
        `^Could not open the waitlist's database no_such_database on 127\\.0\\.0\\.1:${postgres.port}: database "no_such_database" does not exist\\.$`,
      ),
    );
    expect(output).not.toContain("hunter2");
  });
});
