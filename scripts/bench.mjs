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
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import * as cheerio from "cheerio";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { chromium } from "playwright-core";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { findChromium, machine } from "./find-chromium.ts";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const publicDir = path.join(root, "public");
const runs = Number(process.env.BENCH_RUNS ?? 5);
const basePort = Number(process.env.BENCH_PORT ?? 9400);
const routes = ["/", "/privacy-policy/", "/terms-of-service/"];
// Lighthouse's default mobile conditions, applied for real through the DevTools protocol (the browser tests' slow phone).
const { flags, slowPhone: phone } = createRequire(import.meta.url)("./chromium.json");

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values, format) =>
  values.length === 0
    ? "n/a"
    : `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (n) => `${Math.round(n)} ms`;
const s = (n) => `${(n / 1000).toFixed(2)} s`;
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

/** The project's after-build steps (after-build/cli.ts), the one implementation of them. */
function afterBuild(args) {
  return execFileSync(process.execPath, ["--import", "tsx", path.join(root, "after-build/cli.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
  });
}

/** Every HTML page of a copy, with every <script> removed, and any preload of one: no JavaScript at all. */
function stripScripts(dir) {
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".html")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const $ = cheerio.load(readFileSync(file, "utf8"));
    $('script, link[rel="preload"][as="script"], link[rel="modulepreload"]').remove();
    writeFileSync(file, $.html());
  }
}

/** The project's own server (npm run serve) over one copy, on its own port. */
async function serve(dir, port) {
  const data = mkdtempSync(path.join(os.tmpdir(), "bench-data-"));
  const server = spawn(process.execPath, ["--import", "tsx", path.join(root, "server/serve.ts")], {
    cwd: root,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      PUBLIC_DIR: dir,
      WAITLIST_DB: path.join(data, "waitlist.db"),
      OUTBOX_DIR: path.join(data, "outbox"),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise((resolve, reject) => {
    let output = "";
    server.stdout.on("data", (chunk) => {
      output += chunk;
      if (output.includes("is running at")) resolve();
    });
    server.on("exit", (code) => reject(new Error(`The server for ${dir} exited with ${code}`)));
  });
  server.stdout.resume();
  return {
    origin: `http://127.0.0.1:${port}`,
    stop() {
      server.kill("SIGTERM");
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/** One Lighthouse run: its figures, or why it could not finish (no paint seen, page hung). */
async function lighthouseRun(chrome, url) {
  const { lhr } = await lighthouse(url, { port: chrome.port, output: "json", logLevel: "error" });
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
      jsBytes: of("script")?.transferSize ?? 0,
      requests: of("total").requestCount,
    },
  };
}

/**
 * One load of / on the throttled phone, tapping `target` as soon as it shows
 * and waiting for `done`; every time is read from the page's own clock, from
 * the start of the navigation.
 */
async function phoneLoad(browser, origin, target, done) {
  const context = await browser.newContext({ viewport: phone.viewport, isMobile: true, hasTouch: true });
  try {
    const page = await context.newPage();
    await page.addInitScript(() => {
      const t = { fcp: null, tap: null, scroll: null, message: null };
      window.__bench = t;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) if (entry.name === "first-contentful-paint") t.fcp = entry.startTime;
      }).observe({ type: "paint", buffered: true });
      addEventListener("touchstart", (event) => (t.tap ??= event.timeStamp), { capture: true, passive: true });
      addEventListener("scroll", () => t.tap !== null && (t.scroll ??= performance.now()), { passive: true });
      new MutationObserver(() => {
        if (document.getElementById("waitlist-message")?.textContent) t.message ??= performance.now();
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    const cdp = await context.newCDPSession(page);
    for (const [method, params] of phone.commands) await cdp.send(method, params);
    await page.goto(`${origin}/`, { waitUntil: "commit" });
    await target(page).tap();
    // A tap the page never answers (a control that needed its bundles, in an older build) is a lost tap.
    const answered = await page.waitForFunction(done, null, { timeout: 10_000 }).then(
      () => true,
      () => false,
    );
    await page.waitForFunction(
      () =>
        performance.getEntriesByType("navigation")[0]?.loadEventEnd > 0 &&
        performance.getEntriesByName("onInitialClientRender").length > 0,
      null,
      { timeout: 30_000 },
    );
    return await page.evaluate(
      (answered) => ({
        ...window.__bench,
        answered,
        load: performance.getEntriesByType("navigation")[0].loadEventStart,
        hydrated: performance.getEntriesByName("onInitialClientRender")[0].startTime,
      }),
      answered,
    );
  } finally {
    await context.close();
  }
}

/** "Controls live": the hero link's tap, then (a second load) the form's empty submit. */
async function controlsRun(browser, origin) {
  const hero = await phoneLoad(
    browser,
    origin,
    // By its text: a link now, a button in builds from before it became one (BENCH_COMPARE).
    (page) => page.getByRole("main").locator("a, button", { hasText: /^Join the Waitlist$/ }),
    () => window.__bench.scroll !== null,
  );
  const form = await phoneLoad(
    browser,
    origin,
    (page) => page.locator('#waitlist button[type="submit"]'),
    () => window.__bench.message !== null,
  );
  return {
    fcp: form.fcp,
    load: form.load,
    hydrated: form.hydrated,
    heroTap: hero.tap,
    heroScroll: hero.answered ? hero.scroll : null,
    heroBeforeHydration: hero.tap < hero.hydrated,
    formTap: form.tap,
    formMessage: form.answered ? form.message : null,
    formBeforeHydration: form.tap < form.hydrated,
  };
}

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
          controls[variant.name].push(await controlsRun(browser, variant.server.origin));
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

  const cpu = os.cpus();
  console.log(
    `${cpu.length} × ${cpu[0]?.model ?? "CPU"}, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`,
  );
  console.log(`Lighthouse (mobile defaults), ${runs} runs per route and copy, taken in turns; median (min–max)`);
  if (warmUp.run) {
    const { run } = warmUp;
    console.log(
      `Warm-up run on / (left out): performance ${run.scores.performance}, FCP ${s(run.fcp)}, LCP ${s(run.lcp)}, TBT ${ms(run.tbt)}`,
    );
  } else {
    console.log(`Warm-up run on / (left out) failed: ${warmUp.failure}`);
  }
  const pick = (list, key) => list.map((run) => run[key]);
  for (const variant of variants) {
    for (const route of variant.routes) {
      const list = results[variant.name][route];
      console.log(`\n${variant.name} ${route}`);
      if (list.length === 0) continue;
      const score = (id) =>
        range(
          list.map((run) => run.scores[id]),
          String,
        );
      console.log(
        `  performance ${score("performance")}, accessibility ${score("accessibility")}, best practices ${score("best-practices")}, SEO ${score("seo")}`,
      );
      console.log(
        `  FCP ${range(pick(list, "fcp"), s)}, LCP ${range(pick(list, "lcp"), s)}, TBT ${range(pick(list, "tbt"), ms)}, CLS ${range(pick(list, "cls"), (n) => n.toFixed(3))}, Speed Index ${range(pick(list, "speedIndex"), s)}`,
      );
      console.log(
        `  transferred ${range(pick(list, "totalBytes"), kb)}, of it JavaScript ${range(pick(list, "jsBytes"), kb)}, requests ${range(pick(list, "requests"), String)}`,
      );
    }
    for (const failure of failures[variant.name]) console.log(`  a run failed and is left out: ${failure}`);
  }

  const med = (variant, route, key) => median(pick(results[variant][route], key));
  console.log("\nThe site against its floor (every <script> removed), medians");
  for (const route of routes) {
    if (results.site[route].length === 0 || results.floor[route].length === 0) continue;
    const line = (label, key, format) =>
      `${label} ${format(med("site", route, key))} vs ${format(med("floor", route, key))} (${ratio(med("site", route, key), med("floor", route, key))})`;
    console.log(
      `  ${route.padEnd(20)} ${line("LCP", "lcp", s)}, ${line("bytes", "totalBytes", kb)}, JS ${kb(med("site", route, "jsBytes"))} vs ${kb(med("floor", route, "jsBytes"))}`,
    );
  }

  console.log(
    `\nControls live on / (Playwright on the slow phone of scripts/chromium.json), median (min–max) of ${runs}, from navigation start`,
  );
  for (const variant of variants.filter((candidate) => candidate.controls)) {
    const list = controls[variant.name];
    const of = (key) => list.map((run) => run[key]);
    // Over the runs where the page answered the tap; a lost tap has no time.
    const answered = (key) => list.filter((run) => run[key] !== null);
    const after = (key, from) => answered(key).map((run) => run[key] - run[from]);
    const count = (key) =>
      `answered in ${answered(key).length} of ${list.length}, tapped before hydration in ${list.filter((run) => run[key.startsWith("hero") ? "heroBeforeHydration" : "formBeforeHydration"]).length}`;
    console.log(`  ${variant.name}`);
    console.log(
      `    first paint ${range(of("fcp"), s)}, load ${range(of("load"), s)}, hydrated ${range(of("hydrated"), s)} (${range(after("hydrated", "load"), ms)} after load)`,
    );
    console.log(
      `    hero link: tapped ${range(of("heroTap"), s)}, page scrolled ${range(pick(answered("heroScroll"), "heroScroll"), s)} (${range(after("heroScroll", "heroTap"), ms)} after the tap); ${count("heroScroll")}`,
    );
    console.log(
      `    form: tapped ${range(of("formTap"), s)}, client-side message ${range(pick(answered("formMessage"), "formMessage"), s)} (${range(after("formMessage", "load"), ms)} after load); ${count("formMessage")}`,
    );
  }

  if (rewriting.length > 0) {
    console.log("\nAfter-build steps that rewrite Gatsby's output: the site with each, and without it, on /");
    for (const variant of variants.filter((candidate) => candidate.step)) {
      const row = (name) => {
        const lighthouseRuns = results[name]["/"];
        const phoneRuns = controls[name];
        return [
          `performance ${median(lighthouseRuns.map((run) => run.scores.performance))}`,
          `LCP ${s(median(pick(lighthouseRuns, "lcp")))}`,
          `TBT ${ms(median(pick(lighthouseRuns, "tbt")))}`,
          `hydrated ${s(median(pick(phoneRuns, "hydrated")))}`,
          `form message ${s(median(pick(phoneRuns, "formMessage")))}`,
        ].join(", ");
      };
      console.log(`  ${variant.step}: ${steps.find((step) => step.name === variant.step).why}`);
      console.log(`    with it:    ${row("site")}`);
      console.log(`    without it: ${row(variant.name)}`);
    }
  }

  console.log("\nGoals (medians of this run)");
  const goal = (met, text) => console.log(`  ${met ? "met    " : "NOT met"} ${text}`);
  for (const route of routes) {
    const list = results.site[route];
    const scores = ["performance", "accessibility", "best-practices", "seo"].map((id) =>
      median(list.map((run) => run.scores[id])),
    );
    goal(
      scores.every((score) => score === 100),
      `Lighthouse 100/100/100/100 on ${route}: ${scores.join("/")}`,
    );
    goal(med("site", route, "cls") === 0, `CLS 0 on ${route}: ${med("site", route, "cls").toFixed(3)}`);
  }
  goal(
    med("site", "/", "lcp") <= 1.1 * med("floor", "/", "lcp"),
    `/ LCP within 1.1× the floor's: ${s(med("site", "/", "lcp"))} vs ${s(med("floor", "/", "lcp"))} (${ratio(med("site", "/", "lcp"), med("floor", "/", "lcp"))})`,
  );
  const site = controls.site;
  const heroLatency = median(site.map((run) => run.heroScroll - run.heroTap));
  goal(
    site.length > 0 && site.every((run) => run.heroScroll !== null),
    `the hero link live at the first paint: every tap scrolled the page, ${ms(heroLatency)} after it, ${site.filter((run) => run.heroBeforeHydration).length} of ${site.length} taps before hydration`,
  );
  if (controls.compared?.length > 0) {
    const at = (name, key) => median(controls[name].map((run) => run[key]));
    const lost = controls.compared.filter((run) => run.formMessage === null).length;
    goal(
      at("site", "hydrated") < at("compared", "hydrated") && site.every((run) => run.formMessage !== null),
      `the form's enhanced behaviour live sooner than the compared build's: hydrated ${s(at("site", "hydrated"))} vs ${s(at("compared", "hydrated"))}; the compared build lost ${lost} of ${controls.compared.length} early taps`,
    );
  }
  const formAfterLoad = median(site.map((run) => run.formMessage - run.load));
  goal(formAfterLoad <= 300, `the form's enhanced behaviour live within 0.3 s of load: ${ms(formAfterLoad)} after it`);

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
  console.log("\nFile sizes of the site (raw / gzip / brotli)");
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
