import { mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { SqliteStore } from "../../waitlist/stores/sqlite-store";
import { formType, removeDir, request, signupBody, startServer, writePublicDir } from "../support/harness";
import { runServe, spawnServe } from "../support/process";
import { outboxFiles } from "../support/outbox";
import { withSqliteStore } from "../support/sqlite";
import { until } from "../support/until";
import { patience } from "../support/patience";

jest.setTimeout(patience(60_000));

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), "durability-"));
  writePublicDir(path.join(dir, "public"));
});
afterEach(() => removeDir(dir));

const env = () => ({
  PUBLIC_DIR: path.join(dir, "public"),
  WAITLIST_DB: path.join(dir, "data", "waitlist.db"),
  OUTBOX_DIR: path.join(dir, "data", "outbox"),
  WAITLIST_RATE_LIMIT: "1000000",
  // A crashed sender's hold runs out in 2 s, and the running server looks for owed confirmations every second.
  CONFIRMATION_LEASE_SECONDS: "2",
  CONFIRMATION_SWEEP_SECONDS: "1",
});

/** The recipient of every .eml in the outbox. */
function outboxRecipients(): string[] {
  const outbox = env().OUTBOX_DIR;
  return outboxFiles(outbox).map((name) =>
    /^To: (.*)$/m.exec(readFileSync(path.join(outbox, name), "utf8"))![1]!.trim(),
  );
}

describe("the npm start server as a process", () => {
  it("loses no acknowledged signup when killed with SIGKILL in the middle of a burst", async () => {
    const server = await spawnServe(env());
    const acknowledged: string[] = [];
    let sent = 0;
    let stopped = false;
    const exited = new Promise((resolve) => server.child.on("exit", resolve));

    // Eight clients sign up back to back until the server dies under them.
    const client = async (id: number) => {
      while (!stopped) {
        const email = `burst${id}-${sent++}@example.com`;
        try {
          const reply = await request(`${server.url}/`, {
            method: "POST",
            headers: { ...formType, Accept: "text/plain" },
            body: signupBody(email),
          });
          if (reply.status === 200) acknowledged.push(email);
        } catch {
          return; // connection refused or reset: the server is gone
        }
      }
    };
    const clients = Array.from({ length: 8 }, (_, id) => client(id));
    // Killed in the middle of the flow: once enough signups are acknowledged to make the count below mean something.
    await until(() => acknowledged.length > 60, 20_000);
    server.child.kill("SIGKILL");
    await exited;
    stopped = true;
    await Promise.all(clients);

    expect(acknowledged.length).toBeGreaterThan(50);
    await withSqliteStore(env().WAITLIST_DB, async (store) => {
      expect(store.pragma("integrity_check")).toBe("ok");
      const stored = new Set((await store.all()).map((row) => row.email));
      expect(acknowledged.filter((email) => !stored.has(email))).toEqual([]);
    });

    // And it starts again on the same file, with the data.
    const again = await spawnServe(env());
    try {
      const reply = await request(`${again.url}/`, {
        method: "POST",
        headers: { ...formType, Accept: "text/plain" },
        body: signupBody(acknowledged[0]!),
      });
      expect(reply.status).toBe(200);

      // With no manual step, every owed confirmation goes out once the crashed sender's hold has run out.
      const pending = () =>
        withSqliteStore(env().WAITLIST_DB, async (store) => (await store.confirmationCounts()).pending);
      await until(async () => (await pending()) === 0, 30_000);
      const recipients = outboxRecipients();
      expect(recipients.length).toBe(new Set(recipients).size); // never two for one address
      const mailed = new Set(recipients);
      expect(acknowledged.filter((email) => !mailed.has(email))).toEqual([]);
    } finally {
      await again.stop();
    }
  });

  it("says what to run when there is no build", async () => {
    const { code, output } = await runServe({ ...env(), PUBLIC_DIR: path.join(dir, "missing") });
    expect(code).toBe(1);
    expect(output.trim()).toMatch(
      /^No build in .*missing\/\. Run `npm run build` first, or `npm start` to build and serve\.$/,
    );
  });

  it("refuses a malformed PORT with one line", async () => {
    const { code, output } = await runServe({ ...env(), PORT: "ninety" });
    expect(code).toBe(1);
    expect(output.trim()).toBe('PORT must be a whole number from 0 to 65535 (got "ninety").');
  });

  it("removes the signups never confirmed within 30 days when it starts, and keeps every other", async () => {
    const now = Date.now();
    const ago = (days: number) => new Date(now - days * 86_400_000);
    const store = new SqliteStore(env().WAITLIST_DB);
    for (const [email, days] of [
      ["expired@example.com", 31],
      ["confirmed@example.com", 31],
      ["recent@example.com", 29],
    ] as const) {
      await store.add({ email, emailKey: email, source: "start", at: ago(days) });
      await store.markConfirmationSent(email, ago(days));
    }
    await store.confirm("confirmed@example.com", {
      createdAt: ago(31).toISOString(),
      at: ago(30),
      privacyPolicy: null,
    });
    // From before the confirm step, never asked: kept, however old.
    await store.add({
      email: "earlier@example.com",
      emailKey: "earlier@example.com",
      source: "start",
      at: ago(400),
      confirmationSentAt: ago(400),
      earlier: true,
    });
    await store.close();

    const server = await spawnServe(env());
    try {
      await until(() => /Removed 1 signup\(s\) never confirmed within 30 days\./.test(server.output()), 10_000);
      const reader = SqliteStore.openExisting(env().WAITLIST_DB);
      expect((await reader.all()).map((row) => row.email).sort()).toEqual([
        "confirmed@example.com",
        "earlier@example.com",
        "recent@example.com",
      ]);
      expect(await reader.departures()).toBe(1);
      await reader.close();
    } finally {
      await server.stop();
    }
  });

  it("under gatsby develop too: the same hourly pass runs once the waitlist opens", async () => {
    const now = Date.now();
    const ago = (days: number) => new Date(now - days * 86_400_000);
    const developDir = mkdtempSync(path.join(os.tmpdir(), "develop-retention-"));
    const store = new SqliteStore(path.join(developDir, "data", "waitlist.db"));
    for (const [email, days] of [
      ["expired@example.com", 31],
      ["recent@example.com", 29],
    ] as const) {
      await store.add({ email, emailKey: email, source: "develop", at: ago(days) });
      await store.markConfirmationSent(email, ago(days));
    }
    await store.close();
    const logged = jest.spyOn(console, "log").mockImplementation(() => {});
    const server = await startServer("develop", { dir: developDir });
    try {
      // The develop middleware opens the waitlist on its first request.
      expect((await request(`${server.url}/waitlist/leave`)).status).toBeLessThan(500);
      await until(async () => (await server.rows()).length === 1, patience(10_000));
      expect((await server.rows()).map((row) => row.email)).toEqual(["recent@example.com"]);
      expect(logged).toHaveBeenCalledWith("Removed 1 signup(s) never confirmed within 30 days.");
    } finally {
      await server.close();
      logged.mockRestore();
      removeDir(developDir);
    }
  });
});
