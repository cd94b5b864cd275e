// Lighthouse's part of npm run bench: one run on one URL, in the Chromium the bench launched.
import lighthouse from "lighthouse";

/** One Lighthouse run: its figures, or why it could not finish (no paint seen, page hung). */
export async function lighthouseRun(chrome, url) {
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
