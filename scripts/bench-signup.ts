// npm run bench:signup: how many signups per second the npm start server
// acknowledges with synchronous=FULL, 50 connections for 10 s, every request
// a new address. Then the timing of a new against a listed address, one at a
// time: the medians, and how often the best threshold tells them apart.
// Prints figures; it is not a test and sets no pass mark.
import http from "node:http";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { SqliteStore } from "../waitlist/stores/sqlite-store";
import { spawnServe } from "../test/support/process";

const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const duration = Number(process.env.BENCH_SECONDS ?? 10);

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-signup-"));
  const publicDir = path.join(dir, "public");
  mkdirSync(publicDir);
  writeFileSync(path.join(publicDir, "index.html"), "<!doctype html><title>bench</title>");
  const dbFile = path.join(dir, "waitlist.db");
  const server = await spawnServe({
    PUBLIC_DIR: publicDir,
    WAITLIST_DB: dbFile,
    OUTBOX_DIR: path.join(dir, "outbox"),
    WAITLIST_RATE_LIMIT: "1000000",
  });
  const url = `${server.url}/`;

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
  const timing = await newAgainstRepeat(url);
  await server.stop();

  const store = new SqliteStore(dbFile);
  const stored = await store.count();
  const synchronous = store.pragma("synchronous");
  await store.close();
  rmSync(dir, { recursive: true, force: true });

  const acknowledged = result["2xx"];
  console.log(`SignupEndpoint benchmark: ${connections} connections, ${duration} s, a new address per request`);
  console.log(
    `  machine:                 ${os.cpus().length} × ${os.cpus()[0]?.model ?? "CPU"}, Node ${process.version}`,
  );
  console.log(`  synchronous:             ${synchronous === 2 ? "FULL" : synchronous}`);
  console.log(`  acknowledged signups/s:  ${(acknowledged / duration).toFixed(0)}`);
  console.log(`  latency p50 / p99:       ${result.latency.p50} ms / ${result.latency.p99} ms`);
  console.log(`  errors / non-2xx:        ${result.errors} / ${result.non2xx}`);
  console.log(`  rows stored:             ${stored} (acknowledged ${acknowledged})`);
  console.log(`Membership timing: ${timing.samples} new and ${timing.samples} listed addresses, one at a time`);
  console.log(`  median new / listed:     ${timing.newMedian.toFixed(3)} ms / ${timing.repeatMedian.toFixed(3)} ms`);
  console.log(`  best threshold guesses:  ${(timing.bestAccuracy * 100).toFixed(1)} % right (50 % is a coin)`);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** Milliseconds for one signup over a kept-alive connection. */
function timedPost(url: string, agent: http.Agent, email: string): Promise<number> {
  const body = `form-name=waitlist&email=${encodeURIComponent(email)}&bot-field=`;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const req = http.request(
      url,
      { method: "POST", agent, headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/plain" } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(Number(process.hrtime.bigint() - started) / 1e6));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** New and listed addresses, interleaved, one request at a time after the burst has settled. */
async function newAgainstRepeat(url: string, samples = Number(process.env.BENCH_TIMING_SAMPLES ?? 1500)) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  await timedPost(url, agent, "listed@example.com");
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const fresh: number[] = [];
  const repeat: number[] = [];
  for (let i = 0; i < samples; i++) {
    fresh.push(await timedPost(url, agent, `timing${i}@example.com`));
    repeat.push(await timedPost(url, agent, "listed@example.com"));
  }
  agent.destroy();
  // The threshold that best splits the two: the attacker's best single-cut guess.
  let bestAccuracy = 0.5;
  for (const threshold of [...fresh, ...repeat]) {
    const right = fresh.filter((ms) => ms > threshold).length + repeat.filter((ms) => ms <= threshold).length;
    bestAccuracy = Math.max(bestAccuracy, right / (2 * samples), 1 - right / (2 * samples));
  }
  return { samples, newMedian: median(fresh), repeatMedian: median(repeat), bestAccuracy };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
