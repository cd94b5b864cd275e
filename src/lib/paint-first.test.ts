import { loadAfterFirstPaint, withPaintFirstLoader } from "./paint-first";

const sources = ["/webpack-runtime-1.js", "/framework-2.js", "/app-3.js"];
const added = () => [...document.body.querySelectorAll("script")].map((script) => script.getAttribute("src"));

/** A stand-in for the browser's paint timing: paint() reports the first contentful paint. */
function fakePaintTiming(supported = ["paint", "largest-contentful-paint"]) {
  const observers: { callback: PerformanceObserverCallback; connected: boolean }[] = [];
  class FakeObserver {
    static supportedEntryTypes = supported;
    private entry: { callback: PerformanceObserverCallback; connected: boolean };
    constructor(callback: PerformanceObserverCallback) {
      this.entry = { callback, connected: false };
      observers.push(this.entry);
    }
    observe() {
      this.entry.connected = true;
    }
    disconnect() {
      this.entry.connected = false;
    }
  }
  Object.defineProperty(window, "PerformanceObserver", { value: FakeObserver, configurable: true, writable: true });
  return {
    paint(name: string) {
      const list = { getEntriesByName: (wanted: string) => (wanted === name ? [{ name }] : []) };
      for (const observer of observers.filter((entry) => entry.connected))
        observer.callback(list as unknown as PerformanceObserverEntryList, {} as PerformanceObserver);
    },
  };
}

function setVisibility(state: DocumentVisibilityState) {
  Object.defineProperty(document, "visibilityState", { value: state, configurable: true });
}

beforeEach(() => {
  jest.useFakeTimers();
  document.body.innerHTML = "";
  setVisibility("visible");
});
afterEach(() => {
  jest.useRealTimers();
  Reflect.deleteProperty(window, "PerformanceObserver");
});

describe("loadAfterFirstPaint", () => {
  it("adds the bundles, in order, only after the first contentful paint", () => {
    const timing = fakePaintTiming();
    loadAfterFirstPaint(sources);
    timing.paint("first-paint");
    jest.advanceTimersByTime(100);
    expect(added()).toEqual([]);
    timing.paint("first-contentful-paint");
    expect(added()).toEqual([]);
    jest.advanceTimersByTime(0);
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
  const page = `<html><body><main>Hi</main><script id="x">window.a=1</script>${tags}<!-- end --></body></html>`;

  it("replaces Gatsby's bundle tags with one loader where the first one was", () => {
    const html = withPaintFirstLoader(page);
    expect(html).not.toContain(" async>");
    expect(html).toMatch(
      /^<html><body><main>Hi<\/main><script id="x">window\.a=1<\/script><script id="paint-first">\(.+\)\(\[.+\]\);<\/script><!-- end --><\/body><\/html>$/s,
    );
  });

  it("inlines a loader that runs on its own and adds every bundle in the page's order", () => {
    setVisibility("hidden");
    const code = /<script id="paint-first">(.+)<\/script>/s.exec(withPaintFirstLoader(page))![1];
    new Function(code!)();
    expect(added()).toEqual(sources);
  });

  it("leaves a page without bundle tags as it is", () => {
    const plain = "<html><body><p>No scripts</p></body></html>";
    expect(withPaintFirstLoader(plain)).toBe(plain);
  });
});
