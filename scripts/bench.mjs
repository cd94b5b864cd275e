// npm run bench: what the site costs a phone, and what it would cost without
// each after-build step that rewrites Gatsby's output, all in one run.
//
// Copies of the site, each from its own `npm run build`:
//   site          every after-build step, as `npm run build` makes it
//   without STEP  every step but one that rewrites Gatsby's output
//                 (AFTER_BUILD_SKIP=STEP)
//   floor         the site with every <script> (and preload of one) removed, its headers and
//                 compressed copies made anew (after-build/cli.ts): what the
//                 HTML and CSS alone cost, the least any page can
//   compared      with BENCH_COMPARE=DIR, another build measured alike, e.g. an
//                 earlier commit's: git worktree add ../before COMMIT, then
//                 npm ci and SITE_URL=http://127.0.0.1:9404 npm run build there
// Each copy is served by the project's own server (npm run serve) on its own
// port, and measured in turns, so a slow minute on this shared machine hits
// all of them alike:
//   - Lighthouse (default mobile settings, Debian Chromium) on each route;
//   - "controls live" on /: Playwright in Chromium under Lighthouse's mobile
//     conditions (150 ms RTT, 1.6 Mbps, CPU x4, through the DevTools
//     protocol) taps the hero's Join the Waitlist, then in a second load the
//     form's submit button with the field empty, each as soon as it shows,
//     and records when the page scrolled and when the message appeared.
// Figures only, medians with their ranges: no pass mark, never part of npm test.
//
// Its parts, in scripts/bench/: the copies and their servers (copies.mjs), one Lighthouse run (lighthouse.mjs),
// one "controls live" run (controls-live.mjs), and what it prints (report.mjs).
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as chromeLauncher from "chrome-launcher";
import { chromium } from "playwright-core";
import { createRequire } from "node:module";
import { findChromium, machine } from "./find-chromium.ts";
import { afterBuild, fileSizes, publicDir, root, serve, stripScripts } from "./bench/copies.mjs";
import { controlsRun } from "./bench/controls-live.mjs";
import { lighthouseRun } from "./bench/lighthouse.mjs";
import { printFileSizes, printReport } from "./bench/report.mjs";

const runs = Number(process.env.BENCH_RUNS ?? 5);
const basePort = Number(process.env.BENCH_PORT ?? 9400);
const routes = ["/", "/privacy-policy/", "/terms-of-service/"];
// Lighthouse's default mobile conditions, applied for real through the DevTools protocol (the browser tests' slow phone).
const { flags, slowPhone: phone } = createRequire(import.meta.url)("./chromium.json");

async function main() {
  // Found before anything starts: chrome-launcher would otherwise crash the script and orphan the servers.
  const chromePath = findChromium(machine);
  const steps = JSON.parse(afterBuild(["--list"]));
  const rewriting = steps.filter((step) => step.rewritesGatsbyOutput).map((step) => step.name);
  const work = mkdtempSync(path.join(os.tmpdir(), "bench-sites-"));
  const variants = [
    ...rewriting.map((step) => ({ name: `without ${step}`, step, skip: [step], routes: ["/"], controls: true })),
    // Built last, so public/ is left as `npm run build` makes it.
    { name: "site", skip: [], routes, controls: true },
    { name: "floor", routes, controls: false },
  ];
  if (process.env.BENCH_COMPARE) {
    const dir = path.resolve(process.env.BENCH_COMPARE);
    if (!existsSync(path.join(dir, "index.html"))) throw new Error(`BENCH_COMPARE: no build in ${dir}.`);
    variants.push({ name: "compared", routes: ["/"], controls: true, dir });
  }
  const servers = [];
  let chrome;
  let browser;
  const results = {};
  const failures = {};
  const controls = {};
  let warmUp;
  try {
    for (const [index, variant] of variants.entries()) {
      variant.dir ??= path.join(work, variant.name.replace(/\W+/g, "-"));
      if (variant.name === "compared") {
        // Served as it is, from where it was built.
      } else if (variant.name === "floor") {
        // The site's pages without a single <script>; headers (CSP hashes) and compressed copies made anew.
        cpSync(variants.find((candidate) => candidate.name === "site").dir, variant.dir, { recursive: true });
        stripScripts(variant.dir);
        afterBuild([variant.dir, "--skip", rewriting.join(",")]);
      } else {
        console.log(`Building the ${variant.name} copy for http://127.0.0.1:${basePort + index} …`);
        execFileSync("npm", ["run", "build"], {
          cwd: root,
          stdio: "ignore",
          env: {
            ...process.env,
            SITE_URL: `http://127.0.0.1:${basePort + index}`,
            AFTER_BUILD_SKIP: variant.skip.join(","),
          },
        });
        cpSync(publicDir, variant.dir, { recursive: true });
      }
      variant.server = await serve(variant.dir, basePort + index);
      servers.push(variant.server);
      results[variant.name] = Object.fromEntries(variant.routes.map((route) => [route, []]));
      failures[variant.name] = [];
      controls[variant.name] = [];
    }

    chrome = await chromeLauncher.launch({ chromePath, chromeFlags: flags });
    // The first load after Chromium starts pays for Chromium's own start-up (cold caches, first renderer), not the
    // site's: it is measured and printed, never counted in the medians.
    warmUp = await lighthouseRun(chrome, `${variants.find((variant) => variant.name === "site").server.origin}/`);
    process.stdout.write("w");
    for (let i = 0; i < runs; i++) {
      for (const variant of variants) {
        for (const route of variant.routes) {
          const { run, failure } = await lighthouseRun(chrome, `${variant.server.origin}${route}`);
          if (failure) {
            failures[variant.name].push(`${route}: ${failure}`);
            process.stdout.write("x");
          } else {
            results[variant.name][route].push(run);
            process.stdout.write(".");
          }
        }
      }
    }
    chrome.kill();
    chrome = undefined;

    browser = await chromium.launch({ executablePath: chromePath, args: flags });
    for (let i = 0; i < runs; i++) {
      for (const variant of variants.filter((candidate) => candidate.controls)) {
        try {
          controls[variant.name].push(await controlsRun(browser, phone, variant.server.origin));
          process.stdout.write("c");
        } catch (error) {
          failures[variant.name].push(`controls live: ${error.message.split("\n")[0]}`);
          process.stdout.write("x");
        }
      }
    }
  } finally {
    await browser?.close();
    chrome?.kill();
    for (const server of servers) server.stop();
    rmSync(work, { recursive: true, force: true });
  }
  console.log("\n");

  printReport({ runs, routes, variants, steps, rewriting, warmUp, results, failures, controls });
  const sizes = fileSizes();
  printFileSizes(sizes);

  const cpu = os.cpus();
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
        phone,
        steps,
        warmUp,
        results,
        failures,
        controls,
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
