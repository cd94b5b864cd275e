// npm run bench:receiver: how many signups per second the npm start server
// acknowledges with synchronous=FULL, 50 connections for 10 s, every request
// a new address. Prints figures; it is not a test and sets no pass mark.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { WaitlistStore } from "../server/store";
import { spawnServe } from "../test/server/process";

const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const duration = Number(process.env.BENCH_SECONDS ?? 10);

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-receiver-"));
  const publicDir = path.join(dir, "public");
  mkdirSync(publicDir);
  writeFileSync(path.join(publicDir, "index.html"), "<!doctype html><title>bench</title>");
  const dbFile = path.join(dir, "waitlist.db");
  const { child, url: origin } = await spawnServe({
    PUBLIC_DIR: publicDir,
    WAITLIST_DB: dbFile,
    OUTBOX_DIR: path.join(dir, "outbox"),
    WAITLIST_RATE_LIMIT: "1000000",
  });
  const url = `${origin}/`;

  let counter = 0;
  const result = await autocannon({
    url,
    connections,
    duration,
    requests: [
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/plain" },
        setupRequest: (request) => ({
          ...request,
          body: `form-name=waitlist&email=bench${counter++}%40example.com&bot-field=`,
        }),
      },
    ],
  });
  child.kill("SIGTERM");
  await new Promise((resolve) => child.on("exit", resolve));

  const store = new WaitlistStore(dbFile);
  const stored = store.count();
  const synchronous = store.pragma("synchronous");
  store.close();
  rmSync(dir, { recursive: true, force: true });

  const acknowledged = result["2xx"];
  console.log(`Receiver benchmark: ${connections} connections, ${duration} s, a new address per request`);
  console.log(
    `  machine:                 ${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, Node ${process.version}`,
  );
  console.log(`  synchronous:             ${synchronous === 2 ? "FULL" : synchronous}`);
  console.log(`  acknowledged signups/s:  ${(acknowledged / duration).toFixed(0)}`);
  console.log(`  latency p50 / p99:       ${result.latency.p50} ms / ${result.latency.p99} ms`);
  console.log(`  errors / non-2xx:        ${result.errors} / ${result.non2xx}`);
  console.log(`  rows stored:             ${stored} (acknowledged ${acknowledged})`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
