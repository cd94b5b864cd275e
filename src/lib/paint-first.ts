/*
 * Every page is complete as prerendered HTML: the text, the links and a form
 * that posts without JavaScript. So the browser may paint it before running
 * Gatsby's bundles, which otherwise run as soon as they arrive, on a phone
 * often before the first frame, and hold the page's first paint (and its
 * largest text) back by the time they take. After the build, gatsby-node.ts
 * inlines this function in place of Gatsby's <script async> tags.
 *
 * It is serialised with toString(), so it must not use anything from outside
 * its own body.
 */

/** Adds the bundles once the page has painted (or at once, when there is nothing to wait for). */
export function loadAfterFirstPaint(sources: readonly string[], safetyNetMs = 3000): void {
  let started = false;
  const load = () => {
    if (started) return;
    started = true;
    for (const src of sources) {
      const script = document.createElement("script");
      script.src = src;
      document.body.appendChild(script);
    }
  };
  // A tab opened in the background paints nothing until it is shown: nothing to wait for.
  if (document.visibilityState !== "visible") return load();
  const entryTypes = typeof PerformanceObserver === "function" ? PerformanceObserver.supportedEntryTypes : undefined;
  if (entryTypes && entryTypes.includes("paint")) {
    const observer = new PerformanceObserver((list) => {
      if (list.getEntriesByName("first-contentful-paint").length === 0) return;
      observer.disconnect();
      setTimeout(load);
    });
    observer.observe({ type: "paint", buffered: true });
  } else {
    // No paint timing (older Safari): the frame after the next one has painted.
    requestAnimationFrame(() => setTimeout(load));
  }
  // Should the paint never be reported, the page still comes alive.
  setTimeout(load, safetyNetMs);
}

/** How Gatsby writes each bundle into a page (its _gatsby-scripts slice). */
const bundleTag = /<script src="([^"]+)" async><\/script>/g;

/**
 * A built page with its bundle tags replaced by one inline loader, where the
 * first of them was. A page without bundle tags comes back unchanged.
 */
export function withPaintFirstLoader(html: string): string {
  const sources = [...html.matchAll(bundleTag)].map((match) => match[1]);
  if (sources.length === 0) return html;
  const loader = `<script id="paint-first">(${loadAfterFirstPaint.toString()})(${JSON.stringify(sources)});</script>`;
  let placed = false;
  return html.replace(bundleTag, () => {
    if (placed) return "";
    placed = true;
    return loader;
  });
}
