// What npm run bench prints once every run is in: the figures of each copy and route as medians with their ranges,
// the site against its floor, controls live, each rewriting after-build step with and without, the goals, and the
// sizes of the site's files.
import os from "node:os";

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const range = (values, format) =>
  values.length === 0
    ? "n/a"
    : `${format(median(values))} (${format(Math.min(...values))}–${format(Math.max(...values))})`;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const ms = (n) => `${Math.round(n)} ms`;
const s = (n) => `${(n / 1000).toFixed(2)} s`;
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

export function printReport({ runs, routes, variants, steps, rewriting, warmUp, results, failures, controls }) {
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
    console.log(`    form live ${range(of("formLive"), s)} (${range(after("formLive", "load"), ms)} after load)`);
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
          `form live ${s(median(pick(phoneRuns, "formLive")))}`,
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
      at("site", "formLive") < at("compared", "formLive") && site.every((run) => run.formMessage !== null),
      `the form's enhanced behaviour live sooner than the compared build's: ${s(at("site", "formLive"))} vs ${s(at("compared", "formLive"))}; the compared build lost ${lost} of ${controls.compared.length} early taps`,
    );
  }
  // Negative: live before load, as the inline behaviour is from the first paint.
  const liveAfterLoad = median(site.map((run) => run.formLive - run.load));
  const messageAfterLoad = median(site.map((run) => run.formMessage - run.load));
  goal(
    liveAfterLoad <= 300 && site.every((run) => run.formMessage !== null),
    `the form's enhanced behaviour live within 0.3 s of load: live ${ms(liveAfterLoad)} after it, the tapped form's message ${ms(messageAfterLoad)} after it`,
  );
}

export function printFileSizes(sizes) {
  console.log("\nFile sizes of the site (raw / gzip / brotli)");
  for (const size of sizes)
    console.log(
      `  ${size.file.padEnd(60)} ${kb(size.raw).padStart(9)} ${kb(size.gzip).padStart(9)} ${kb(size.brotli).padStart(9)}`,
    );
}
