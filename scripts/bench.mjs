// npm run bench: what the site costs a phone. Builds the site for the local
// origin, serves public/ compressed with the project's own server, runs
// Lighthouse (default mobile settings, Debian Chromium) several times per
// route and prints medians and ranges, then the compressed size of every
// bundle and page. Figures only: no pass mark, never part of npm test.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const publicDir = path.join(root, "public");
const runs = Number(process.env.BENCH_RUNS ?? 5);
const port = Number(process.env.BENCH_PORT ?? 9400);
const routes = ["/", "/privacy-policy/", "/terms-of-service/"];
const { path: defaultChromium, flags } = createRequire(import.meta.url)("./chromium.json");

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values, format) =>
  `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (n) => `${Math.round(n)} ms`;
const s = (n) => `${(n / 1000).toFixed(2)} s`;

async function main() {
  const chromePath = process.env.CHROME_PATH ?? defaultChromium;
  if (!existsSync(chromePath)) {
    // Checked before anything starts: chrome-launcher would otherwise crash the script and orphan the server.
    throw new Error(`No Chromium at ${chromePath}: run apt-get install -y chromium, or set CHROME_PATH.`);
  }
  if (!process.argv.includes("--no-build")) {
    console.log(`Building for http://127.0.0.1:${port} …`);
    execFileSync("npm", ["run", "build"], {
      cwd: root,
      stdio: "ignore",
      env: { ...process.env, SITE_URL: `http://127.0.0.1:${port}` },
    });
  }

  // The project's own server (npm run serve), compressed, on a fixed port the build's SITE_URL names.
  const dir = mkdtempSync(path.join(os.tmpdir(), "bench-"));
  const server = spawn(process.execPath, ["--import", "tsx", path.join(root, "server/serve.ts")], {
    cwd: root,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      WAITLIST_DB: path.join(dir, "waitlist.db"),
      OUTBOX_DIR: path.join(dir, "outbox"),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise((resolve, reject) => {
    let output = "";
    server.stdout.on("data", (chunk) => {
      output += chunk;
      if (output.includes("is running at")) resolve();
    });
    server.on("exit", (code) => reject(new Error(`The server exited with ${code}`)));
  });
  server.stdout.resume();
  const origin = `http://127.0.0.1:${port}`;

  let chrome;
  // One Lighthouse run: its figures, or why it could not finish (no paint seen, page hung).
  const lighthouseRun = async (route) => {
    const { lhr } = await lighthouse(`${origin}${route}`, { port: chrome.port, output: "json", logLevel: "error" });
    if (lhr.runtimeError) return { failure: `${lhr.runtimeError.code}: ${lhr.runtimeError.message}` };
    const audit = (id) => lhr.audits[id]?.numericValue ?? NaN;
    const summary = lhr.audits["resource-summary"].details.items;
    const of = (type) => summary.find((item) => item.resourceType === type);
    return {
      run: {
        scores: Object.fromEntries(
          Object.entries(lhr.categories).map(([id, category]) => [id, Math.round((category.score ?? 0) * 100)]),
        ),
        fcp: audit("first-contentful-paint"),
        lcp: audit("largest-contentful-paint"),
        tbt: audit("total-blocking-time"),
        cls: audit("cumulative-layout-shift"),
        speedIndex: audit("speed-index"),
        totalBytes: of("total").transferSize,
        jsBytes: of("script").transferSize,
        requests: of("total").requestCount,
      },
    };
  };

  const results = {};
  const failures = {};
  let warmUp;
  try {
    chrome = await chromeLauncher.launch({ chromePath, chromeFlags: flags });
    // The first load after Chromium starts pays for Chromium's own start-up (cold caches, first renderer), not the
    // site's: it is measured and printed, never counted in the medians.
    warmUp = await lighthouseRun("/");
    process.stdout.write("w");
    for (const route of routes) {
      results[route] = [];
      failures[route] = [];
      for (let i = 0; i < runs; i++) {
        const { run, failure } = await lighthouseRun(route);
        if (failure) {
          failures[route].push(failure);
          process.stdout.write("x");
          continue;
        }
        results[route].push(run);
        process.stdout.write(".");
      }
    }
  } finally {
    chrome?.kill();
    server.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
  console.log("");

  const cpu = os.cpus();
  console.log(`Lighthouse (mobile defaults), ${runs} runs per route, median (min–max)`);
  console.log(
    `${cpu.length} × ${cpu[0]?.model ?? "CPU"}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`,
  );
  if (warmUp.run) {
    const { run } = warmUp;
    console.log(
      `Warm-up run on / (left out): performance ${run.scores.performance}, FCP ${s(run.fcp)}, LCP ${s(run.lcp)}, TBT ${ms(run.tbt)}`,
    );
  } else {
    console.log(`Warm-up run on / (left out) failed: ${warmUp.failure}`);
  }
  for (const route of routes) {
    const list = results[route];
    const pick = (key) => list.map((run) => run[key]);
    const score = (id) =>
      range(
        list.map((run) => run.scores[id]),
        String,
      );
    console.log(`\n${route}`);
    for (const failure of failures[route]) console.log(`  a run failed and is left out: ${failure}`);
    if (list.length === 0) continue;
    console.log(
      `  performance ${score("performance")}, accessibility ${score("accessibility")}, best practices ${score("best-practices")}, SEO ${score("seo")}`,
    );
    console.log(
      `  FCP ${range(pick("fcp"), s)}, LCP ${range(pick("lcp"), s)}, TBT ${range(pick("tbt"), ms)}, CLS ${range(pick("cls"), (n) => n.toFixed(3))}, Speed Index ${range(pick("speedIndex"), s)}`,
    );
    console.log(
      `  transferred ${range(pick("totalBytes"), kb)}, of it JavaScript ${range(pick("jsBytes"), kb)}, requests ${range(pick("requests"), String)}`,
    );
  }

  const sizes = [];
  const measure = (file) => {
    const content = readFileSync(file);
    sizes.push({
      file: `/${path.relative(publicDir, file)}`,
      raw: content.length,
      gzip: gzipSync(content, { level: 9 }).length,
      brotli: brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    });
  };
  for (const name of readdirSync(publicDir).sort()) if (/\.(js|css)$/.test(name)) measure(path.join(publicDir, name));
  for (const page of ["index.html", "privacy-policy/index.html", "terms-of-service/index.html", "404.html"]) {
    measure(path.join(publicDir, page));
  }
  console.log("\nFile sizes (raw / gzip / brotli)");
  for (const size of sizes)
    console.log(
      `  ${size.file.padEnd(60)} ${kb(size.raw).padStart(9)} ${kb(size.gzip).padStart(9)} ${kb(size.brotli).padStart(9)}`,
    );

  const outDir = path.join(root, "artifacts", "bench");
  mkdirSync(outDir, { recursive: true });
  const out = path.join(outDir, `lighthouse-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  writeFileSync(
    out,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: `${cpu.length} × ${cpu[0]?.model}`,
        runs,
        warmUp,
        results,
        failures,
        sizes,
      },
      null,
      2,
    ),
  );
  console.log(`\nWrote ${path.relative(root, out)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
