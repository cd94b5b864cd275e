/** @jest-environment jsdom */
import { loadAfterFirstPaint, withPaintFirstLoader } from "./paint-first";

const sources = ["/webpack-runtime-1.js", "/framework-2.js", "/app-3.js"];
const added = () => [...document.head.querySelectorAll("script")].map((script) => script.getAttribute("src"));

/**
 * A stand-in for the browser's paint timing: support for it, and the
 * timeline's entries; paint() puts one in, as the browser does when the paint is shown.
 */
function fakePaintTiming(supported = ["paint", "largest-contentful-paint"]) {
  const timeline: string[] = [];
  Object.defineProperty(window, "PerformanceObserver", {
    value: Object.assign(function PerformanceObserver() {}, { supportedEntryTypes: supported }),
    configurable: true,
    writable: true,
  });
  // On the fake timers' own performance object, which has only its clock.
  Object.defineProperty(performance, "getEntriesByName", {
    value: (name: string) => timeline.filter((entry) => entry === name).map((entry) => ({ name: entry })),
    configurable: true,
  });
  return { paint: (name: string) => timeline.push(name) };
}

function setVisibility(state: DocumentVisibilityState) {
  Object.defineProperty(document, "visibilityState", { value: state, configurable: true });
}

beforeEach(() => {
  jest.useFakeTimers();
  document.head.innerHTML = "";
  document.body.innerHTML = "";
  setVisibility("visible");
});
afterEach(() => {
  jest.useRealTimers();
  Reflect.deleteProperty(window, "PerformanceObserver");
});

describe("loadAfterFirstPaint", () => {
  it("adds the bundles, in order, in the first frame after the first contentful paint is in the timeline", () => {
    const timing = fakePaintTiming();
    loadAfterFirstPaint(sources);
    timing.paint("first-paint");
    jest.advanceTimersByTime(100);
    expect(added()).toEqual([]);
    timing.paint("first-contentful-paint");
    expect(added()).toEqual([]);
    jest.advanceTimersByTime(16);
    expect(added()).toEqual(sources);
  });

  it("adds them once, even when the safety net fires later", () => {
    const timing = fakePaintTiming();
    loadAfterFirstPaint(sources, 3000);
    timing.paint("first-contentful-paint");
    jest.advanceTimersByTime(5000);
    expect(added()).toEqual(sources);
  });

  it("adds them after 3 s when no paint is ever reported", () => {
    fakePaintTiming();
    loadAfterFirstPaint(sources);
    jest.advanceTimersByTime(2999);
    expect(added()).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(added()).toEqual(sources);
  });

  it("waits for the next frame where paint timing is missing", () => {
    fakePaintTiming([]);
    loadAfterFirstPaint(sources);
    expect(added()).toEqual([]);
    jest.advanceTimersByTime(50);
    expect(added()).toEqual(sources);
  });

  it("adds them at once in a tab opened in the background", () => {
    fakePaintTiming();
    setVisibility("hidden");
    loadAfterFirstPaint(sources);
    expect(added()).toEqual(sources);
  });
});

describe("withPaintFirstLoader", () => {
  const tags = sources.map((src) => `<script src="${src}" async></script>`).join("");
  const page = `<html><head><title>Hi</title></head><body><main>Hi</main><script id="x">window.a=1</script>${tags}<!-- end --></body></html>`;

  it("removes the bundle tags, the page's own in either spelling, and puts one loader for them at the end of <head>", () => {
    const html = withPaintFirstLoader(page.replace(" async></script>", ' async=""></script>'));
    expect(html).toMatch(
      /^<html><head><title>Hi<\/title><script id="paint-first">\(.+\)\(\[.+\]\);<\/script><\/head><body><main>Hi<\/main><script id="x">window\.a=1<\/script><!-- end --><\/body><\/html>$/s,
    );
    expect(JSON.parse(/\((\[[^\]]+\])\);<\/script>/.exec(html)![1]!)).toEqual(sources);
  });

  it("inlines a loader that runs on its own and adds every bundle in the page's order", () => {
    setVisibility("hidden");
    const code = /<script id="paint-first">(.+?)<\/script>/s.exec(withPaintFirstLoader(page))![1];
    new Function(code!)();
    expect(added()).toEqual(sources);
  });

  it("leaves a page without bundle tags as it is", () => {
    const plain = "<html><head></head><body><p>No scripts</p></body></html>";
    expect(withPaintFirstLoader(plain)).toBe(plain);
  });

  it("refuses a page with bundles but no <head> to put the loader in", () => {
    expect(() => withPaintFirstLoader(`<body>${tags}</body>`)).toThrow("no </head>");
  });
});
