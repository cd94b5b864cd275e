/*
 * Every page is complete as prerendered HTML: its links, its menu and a form
 * that posts all work before any script runs. So the browser may paint it
 * before it runs Gatsby's bundles, which otherwise run as soon as they
 * arrive, on a fast connection before the first frame, holding the first
 * paint back (and Lighthouse then counts them into the largest one).
 *
 * After the build, this step replaces the bundles' <script async> tags
 * (Gatsby's, and the page's own chunk that gatsby-ssr.tsx adds) with one
 * inline loader that adds them once the first contentful paint is reported.
 *
 * loadAfterFirstPaint is serialised with toString(), so it must not use
 * anything from outside its own body.
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
      document.head.appendChild(script);
    }
  };
  // A tab opened in the background paints nothing until it is shown: nothing to wait for.
  if (document.visibilityState !== "visible") return load();
  const entryTypes = typeof PerformanceObserver === "function" ? PerformanceObserver.supportedEntryTypes : undefined;
  if (entryTypes && entryTypes.includes("paint")) {
    // The entry is in the timeline as soon as the paint is shown; an observer's callback comes
    // a low-priority task later (0.2 to 0.5 s on a throttled phone), so look once a frame.
    const check = () => {
      if (started) return;
      if (performance.getEntriesByName("first-contentful-paint").length > 0) load();
      else requestAnimationFrame(check);
    };
    requestAnimationFrame(check);
  } else {
    // No paint timing (older Safari): the frame after the next one has painted.
    requestAnimationFrame(() => setTimeout(load));
  }
  // Should the paint never be reported, the page still comes alive.
  setTimeout(load, safetyNetMs);
}

/** How Gatsby writes each bundle into a page (its _gatsby-scripts slice), and gatsby-ssr.tsx the page's own. */
const bundleTag = /<script src="([^"]+)" async(?:="")?><\/script>/g;

/**
 * A built page with its bundle tags removed and one inline loader for them at
 * the end of its <head>: there it watches for the first paint while the body
 * is still being parsed (a loader at the end of the body ran only once the
 * whole page was parsed, 0.3 s after the first paint on a throttled phone). A
 * page without bundle tags comes back unchanged.
 */
export function withPaintFirstLoader(html: string): string {
  const sources = [...html.matchAll(bundleTag)].map((match) => match[1]);
  if (sources.length === 0) return html;
  if (!html.includes("</head>")) throw new Error("A page with bundles but no </head>: nowhere to put the loader.");
  const loader = `<script id="paint-first">(${loadAfterFirstPaint.toString()})(${JSON.stringify(sources)});</script>`;
  return html.replace(bundleTag, "").replace("</head>", `${loader}</head>`);
}
