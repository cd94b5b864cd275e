import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { mailConfig, readEnv } from "../../config/env";
import { projectFolders } from "../../config/folders";
import { startServer, type RunningServer } from "../../server/start-server";
import { startSmtpServer, type TestSmtpServer } from "../support/smtp";
import { testSite } from "../support/site-settings";
import { until } from "../support/until";
import { writePublicDir } from "../support/harness";

/*
 * The founders' digest on npm start: its hourly pass mails it once a day, whatever the number of servers over one
 * store (FOUNDERS_DIGEST_TO; waitlist/reports/daily-digest.ts holds the figures).
 */

let dir: string;
let smtp: TestSmtpServer;
const running: RunningServer[] = [];
beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), "digest-"));
  writePublicDir(path.join(dir, "public"));
  smtp = await startSmtpServer();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
  await smtp.close();
  rmSync(dir, { recursive: true, force: true });
});

const serve = async (foundersDigestTo: string[]) => {
  const server = await startServer({
    host: "127.0.0.1",
    port: 0,
    publicDir: path.join(dir, "public"),
    trustProxy: 0,
    log: () => {},
    schedule: true,
    waitlist: {
      ...testSite,
      dbFile: path.join(dir, "waitlist.db"),
      migrations: projectFolders.migrations,
      legalFolder: projectFolders.legal,
      mail: mailConfig(readEnv({ SMTP_URL: smtp.url })),
      source: "start",
      rateLimitPerMinute: 100,
      foundersDigestTo,
    },
  });
  running.push(server);
  return server;
};

it("mails the founders' digest once a day from npm start's hourly pass, however many servers share the store", async () => {
  const servers = [await serve(["founder@example.com"]), await serve(["founder@example.com"])];
  await Promise.all(servers.map((server) => server.firstPass));
  await until(() => smtp.deliveries.length >= 1, 10_000);
  expect(smtp.deliveries.map((delivery) => delivery.envelope.to)).toEqual([["founder@example.com"]]);
});

it("mails nothing without FOUNDERS_DIGEST_TO", async () => {
  const server = await serve([]);
  await Promise.all([server.firstSweep, server.firstPass]);
  expect(smtp.deliveries).toEqual([]);
});
