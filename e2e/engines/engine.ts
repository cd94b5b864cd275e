import { until } from "../../test/support/until";

/*
 * What the cross-engine browser tests ask of a browser, so that one test file
 * runs the spec's flows in Firefox (firefox.ts) and WebKit (webkit.ts) alike.
 * Chromium keeps Playwright and its own, larger suite (support.ts).
 */

export type EngineName = "Firefox" | "WebKit";

export interface Viewport {
  width: number;
  height: number;
}

export interface EnginePage {
  /** The viewport the engine gave: WebKit's MiniBrowser window is never narrower than 447 px. */
  readonly viewport: Viewport;
  /** Navigates, and resolves at the load event: the moment a visitor may act. */
  goto(url: string): Promise<void>;
  url(): Promise<string>;
  /** Runs `fn` in the page (a serialized function: no closures), awaiting a promise it returns. */
  evaluate<A extends unknown[], R>(fn: (...args: A) => R, ...args: A): Promise<Awaited<R>>;
  /** A real click, as the driver makes it, on the first element `selector` matches (scrolled into view). */
  click(selector: string): Promise<void>;
  /** Focuses the element and types `text` key by key. */
  type(selector: string, text: string): Promise<void>;
  /** A key press on whatever has focus. */
  press(key: "Enter" | "Escape" | "Tab"): Promise<void>;
  /** Saves what the viewport shows as a PNG. */
  screenshot(file: string): Promise<void>;
  /** Console errors, uncaught errors and CSP violations of the current document, as recorded. */
  problems(): Promise<string[]>;
  close(): Promise<void>;
}

export interface Engine {
  name: EngineName;
  /** The browser's own version string, for docs/testing.md's table and the test names. */
  version: string;
  open(options: { viewport: Viewport; javaScript?: boolean }): Promise<EnginePage>;
  /**
   * Only where a page's problems() start at its load event (WebKit): the
   * errors and CSP messages the engine's console printed while `url` loaded,
   * from the document's first byte until `loaded()` holds (the test's
   * condition on what the site has been asked for).
   */
  consoleWhileLoading?(url: string, loaded: () => boolean): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * Records a document's problems in `window.pageProblems`: CSP violations,
 * uncaught errors and rejections, and console.error calls. Run in the page:
 * in Firefox before the page's own scripts; in WebKit, whose WebDriver cannot
 * inject that early, at each load (its console audit covers the load itself).
 */
export function recordProblems(wrapConsole: boolean): void {
  const holder = window as unknown as { pageProblems?: string[] };
  if (holder.pageProblems) return;
  const problems: string[] = [];
  holder.pageProblems = problems;
  document.addEventListener("securitypolicyviolation", (event) =>
    problems.push(`CSP: ${event.violatedDirective} blocked ${event.blockedURI || "inline"}`),
  );
  window.addEventListener("error", (event) => problems.push(`uncaught: ${event.message}`));
  window.addEventListener("unhandledrejection", (event) =>
    problems.push(`unhandled rejection: ${String(event.reason)}`),
  );
  if (wrapConsole) {
    const original = console.error.bind(console);
    console.error = (...args: unknown[]) => {
      problems.push(`console.error: ${args.map(String).join(" ")}`);
      original(...args);
    };
  }
}

/** The problems recordProblems() has kept for the current document. */
export function recordedProblems(): string[] {
  return [...((window as unknown as { pageProblems?: string[] }).pageProblems ?? [])];
}

/**
 * Where a tap on the element `selector` names lands, as a visitor makes it:
 * the element is scrolled into view first if it is not (at once: the site's
 * smooth scrolling would leave it moving under the driver's pointer), and the
 * tap goes to its centre, which must be the element's own (not under the
 * fixed header, say). Run in the page.
 */
export function tapPoint(selector: string): { x: number; y: number } {
  const element = document.querySelector(selector);
  if (!element) throw new Error(`Nothing on the page matches ${selector}.`);
  let box = element.getBoundingClientRect();
  if (box.top < 0 || box.bottom > window.innerHeight || box.left < 0 || box.right > window.innerWidth) {
    element.scrollIntoView({ block: "center", inline: "center", behavior: "instant" });
    box = element.getBoundingClientRect();
  }
  const x = box.left + box.width / 2;
  const y = box.top + box.height / 2;
  const top = document.elementFromPoint(x, y);
  if (!top || !(element === top || element.contains(top))) {
    throw new Error(`A tap on ${selector} would land on ${top ? top.outerHTML.slice(0, 80) : "nothing"}.`);
  }
  return { x, y };
}

/** Runs `fn` in the page until it returns something truthy, and returns that; throws naming `what` after `timeoutMs`. */
export async function waitInPage<A extends unknown[], R>(
  page: EnginePage,
  what: string,
  fn: (...args: A) => R,
  args: A,
  timeoutMs = 10_000,
): Promise<NonNullable<Awaited<R>>> {
  let value: Awaited<R> | undefined;
  await until(async () => Boolean((value = await page.evaluate(fn, ...args))), timeoutMs, what);
  return value as NonNullable<Awaited<R>>;
}
