import { maskEmail } from "../waitlist/email-address";
import { confirmLinks, leaveLinks } from "../test/support/smtp";
import { readEnv } from "../config/env";
import { engineChoices } from "./engines";
import { waitInPage, type Engine, type EnginePage } from "./engines/engine";
import { startFront, type Front } from "./engines/front";
import {
  expectAtOffset,
  recordTextChanges,
  routes,
  screenshotPath,
  sectionPosition,
  settledScroll,
  shownFor,
  textChanges,
  pastGatsbyPrefetch,
  visitFiles,
  viewports,
} from "./support";
import { startSite, type Site } from "../test/support/site";
import { freshEmail } from "../test/support/addresses";

/*
 * The spec's flows in Firefox and WebKit (e2e/engines/), on the one built site
 * and one server the engines share. Chromium runs the larger suite beside
 * this one. An engine this machine lacks is skipped with a line naming its
 * package; under CI it fails the run instead.
 */

jest.setTimeout(120_000);

const INVALID = "Please enter a valid email address";
const SUCCESS = "Welcome to the waitlist! Check your email for a confirmation message.";
const FAILED = "Something went wrong. Please try again.";
const OFFLINE = "Unable to connect. Please check your connection and try again.";

const { available, missing } = engineChoices();

for (const { name, line } of missing) {
  if (readEnv().CI) {
    it(`${name} is installed`, () => {
      throw new Error(line);
    });
  } else {
    describe.skip(`${name}: ${line}`, () => {
      it("runs the spec's flows", () => {});
    });
  }
}

const shared = {} as { site: Site; front: Front };
beforeAll(async () => {
  shared.site = await startSite();
  shared.front = await startFront(shared.site.url);
});
afterAll(async () => {
  await shared.front?.close();
  await shared.site?.stop();
});

const listed = async (email: string) => (await shared.site.rows()).some((row) => row.email === email);
const text = (page: EnginePage, selector: string) =>
  page.evaluate((target: string) => document.querySelector(target)?.textContent?.trim() ?? null, selector);
const untilText = (page: EnginePage, selector: string, expected: string, timeoutMs?: number) =>
  waitInPage(
    page,
    `${selector} to read ${JSON.stringify(expected)}`,
    (target: string, wanted: string) => document.querySelector(target)?.textContent?.trim() === wanted,
    [selector, expected],
    timeoutMs,
  );
const hydrated = (page: EnginePage) =>
  waitInPage(
    page,
    "Gatsby to hydrate the page",
    () => performance.getEntriesByName("onInitialClientRender").length > 0,
    [],
  );

/** How long the page must hold still to count as done scrolling (support.ts settledScroll). */
const quiet = 750;

/**
 * Clicks `selector`, then waits for the scroll it starts to begin: a page that
 * has not yet moved would otherwise count as still. WebKit on a virtual display
 * draws its first frame up to a third of a second after the click, and later on
 * a busy machine.
 */
async function clickAndScroll(page: EnginePage, selector: string): Promise<void> {
  const before = await page.evaluate(() => window.scrollY);
  await page.click(selector);
  await waitInPage(page, `a scroll from ${before} px`, (from: number) => window.scrollY !== from, [before]);
}

const email = "#waitlist-email";
const submit = '#waitlist button[type="submit"]';
const message = "#waitlist-message";
const toggle = "header details > summary";
const menuOpen = (page: EnginePage) =>
  page.evaluate(() => (document.querySelector("header details") as HTMLDetailsElement).open);

describe.each(available)("$name", (choice) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await choice.launch();
    console.log(`${choice.name}: ${engine.version}`);
  });
  afterAll(() => engine?.close());

  const open = async (path: string, viewport: "desktop" | "phone" = "desktop", javaScript = true) => {
    const page = await engine.open({ viewport: viewports[viewport], javaScript });
    await page.goto(`${javaScript ? shared.front.url : shared.site.url}${path}`);
    return page;
  };

  describe("every route", () => {
    it.each(routes)(
      "%s logs no console error and no CSP violation, from its first byte to after every link is in view",
      async (route) => {
        const files = visitFiles(route);
        const url = `${shared.site.url}${route}`;
        // Where the engine's problems() start at the load event, its console is read from the first byte on, through
        // the front: over once the site has been asked for every file of the visit, the scripts after the load event.
        const since = shared.front.requested().length;
        const loaded = () => {
          const asked = shared.front.requested().slice(since);
          return files.every((file) => asked.includes(file));
        };
        const [whileLoading, afterLinksInView] = await Promise.all([
          engine.consoleWhileLoading?.(`${shared.front.url}${route}`, loaded) ?? [],
          (async () => {
            const page = await engine.open({ viewport: viewports.desktop });
            await page.goto(url);
            await waitInPage(
              page,
              "hydration",
              () => performance.getEntriesByName("onInitialClientRender").length > 0,
              [],
            );
            // With every link in view, past the moment Gatsby would load the pages they lead to: nothing is refused.
            await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
            await page.evaluate(pastGatsbyPrefetch);
            const problems = await page.problems();
            await page.close();
            return problems;
          })(),
        ]);
        expect(afterLinksInView).toEqual([]);
        expect(whileLoading).toEqual([]);
      },
    );
  });

  describe.each(["desktop", "phone"] as const)("every route at %s size", (size) => {
    it.each(routes)("%s fits the width, with every image loaded, and is saved as a screenshot", async (route) => {
      const page = await open(route, size);
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await settledScroll(page, quiet);
      await waitInPage(page, "every image", () => Array.from(document.images).every((image) => image.complete), []);
      await page.evaluate(() => window.scrollTo(0, 0));
      await settledScroll(page, quiet);
      // Nothing scrolls sideways: a phone would pan.
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
      ).toBe(0);
      expect(
        await page.evaluate(() => Array.from(document.images).filter((image) => image.naturalWidth === 0).length),
      ).toBe(0);
      await page.screenshot(screenshotPath(route, size, engine.name));
      expect(await page.problems()).toEqual([]);
      await page.close();
    });
  });

  describe("the landing page", () => {
    it.each([
      ["the header's Features", "features", 'header nav[aria-label="Main"] a[href="#features"]'],
      ["the header's Join Waitlist", "waitlist", 'header nav[aria-label="Main"] a[href="#waitlist"]'],
      ["the hero's Join the Waitlist", "waitlist", 'main a[href="#waitlist"]'],
    ])("%s puts #%s 80 px below the top", async (_name, id, link) => {
      const page = await open("/");
      await clickAndScroll(page, link);
      expectAtOffset(await sectionPosition(page, id, quiet));
      expect(new URL(await page.url()).hash).toBe(`#${id}`);
      expect(await page.problems()).toEqual([]);
      await page.close();
    });

    it("at phone size, the menu opens and closes, and its entries put their section 80 px below the top", async () => {
      const page = await open("/", "phone");
      expect(page.viewport.width).toBeLessThan(640);
      // Native <details>: it works from the first paint.
      await page.click(toggle);
      expect(await menuOpen(page)).toBe(true);
      await page.click(toggle);
      expect(await menuOpen(page)).toBe(false);
      // Once enhanced: Escape closes it and gives focus back to the toggle; so does a tap outside it.
      await hydrated(page);
      await page.click(toggle);
      await page.press("Escape");
      expect(await menuOpen(page)).toBe(false);
      expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("SUMMARY");
      await page.click(toggle);
      await page.click("#features-title");
      expect(await menuOpen(page)).toBe(false);
      for (const id of ["features", "waitlist"]) {
        await page.click(toggle);
        await clickAndScroll(page, `header nav[aria-label="Mobile"] a[href="#${id}"]`);
        expectAtOffset(await sectionPosition(page, id, quiet));
        expect(await menuOpen(page)).toBe(false);
      }
      expect(await page.problems()).toEqual([]);
      await page.close();
    });
  });

  describe("the waitlist form", () => {
    afterEach(() => {
      shared.front.setMode("pass");
      shared.front.release();
    });

    it("refuses an empty and an invalid address with the client's message, and sends nothing", async () => {
      const page = await open("/");
      const posts = shared.front.posts();
      await page.click(submit);
      await untilText(page, message, INVALID);
      await page.type(email, "creator.example.com");
      await page.click(submit);
      expect(await text(page, message)).toBe(INVALID);
      expect(
        await page.evaluate((input: string) => document.querySelector(input)!.getAttribute("aria-invalid"), email),
      ).toBe("true");
      expect(shared.front.posts()).toBe(posts);
      expect(await page.problems()).toEqual([]);
      await page.close();
    });

    it("reads Joining... with its controls disabled while the reply is pending, then welcomes the visitor", async () => {
      const page = await open("/");
      const address = freshEmail(engine.name.toLowerCase());
      shared.front.setMode("hold");
      await page.type(email, address);
      await page.click(submit);
      await untilText(page, submit, "Joining...");
      const disabled = (selector: string) =>
        page.evaluate((target: string) => (document.querySelector(target) as HTMLInputElement).disabled, selector);
      expect([await disabled(email), await disabled(submit)]).toEqual([true, true]);
      shared.front.setMode("pass");
      shared.front.release();
      await untilText(page, message, SUCCESS);
      expect(await text(page, submit)).toBe("Join Waitlist");
      expect([await disabled(email), await disabled(submit)]).toEqual([false, false]);
      expect(await listed(address)).toBe(true);
      expect(await page.problems()).toEqual([]);
      await page.close();
    });

    it.each([
      ["fail", "a server error", FAILED],
      ["cut", "a lost connection", OFFLINE],
    ] as const)("meets %s (%s) with the spec's message", async (mode, _what, expected) => {
      const page = await open("/");
      shared.front.setMode(mode);
      await page.type(email, freshEmail(engine.name.toLowerCase()));
      await page.click(submit);
      await untilText(page, message, expected);
      expect(await text(page, submit)).toBe("Join Waitlist");
      await page.close();
    });

    it("clears the message and returns to idle 7 s after it appears", async () => {
      const page = await open("/");
      // Record, in the page's own clock, when the message region changes.
      await page.evaluate(recordTextChanges, message);
      await page.type(email, freshEmail(engine.name.toLowerCase()));
      await page.click(submit);
      await untilText(page, message, SUCCESS);
      await untilText(page, message, "", 10_000);
      const shown = shownFor(await page.evaluate(textChanges), SUCCESS);
      expect(shown).toBeGreaterThanOrEqual(6990);
      expect(shown).toBeLessThan(7500);
      expect(await page.problems()).toEqual([]);
      await page.close();
    });
  });

  describe("the legal pages", () => {
    const verification = 'meta[name="tiktok-developers-site-verification"]';
    const tags = (page: EnginePage) =>
      page.evaluate((selector: string) => document.querySelectorAll(selector).length, verification);

    it.each(["/privacy-policy/", "/terms-of-service/"])(
      "%s opens at the top with the verification tag; Join the Waitlist puts #waitlist 80 px below the top",
      async (route) => {
        const page = await open(route);
        expect(await settledScroll(page, quiet)).toBe(0);
        expect(await tags(page)).toBe(1);
        await page.click('aside a[href="/#waitlist"]');
        await waitInPage(
          page,
          "the landing page",
          () => location.pathname === "/" && location.hash === "#waitlist",
          [],
        );
        // The scroll comes 200 ms after the page shows: later, on a loaded machine, than a still page looks settled.
        await waitInPage(page, "the scroll", () => window.scrollY > 0, []);
        expectAtOffset(await sectionPosition(page, "waitlist", quiet));
        expect(await tags(page)).toBe(0);
        expect(await page.problems()).toEqual([]);
        await page.close();
      },
    );

    it.each(["/privacy-policy/", "/terms-of-service/"])(
      "%s: Back to Home leads to the top of /, and the verification tag goes with Gatsby's router",
      async (route) => {
        const page = await open(route);
        await hydrated(page);
        await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
        await page.click('main a[href="/"]');
        await waitInPage(page, "the landing page", () => location.pathname === "/", []);
        await waitInPage(page, "the tag to go", (selector: string) => !document.querySelector(selector), [
          verification,
        ]);
        // Still the same document: Gatsby's router took the visitor there.
        expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
        expect(await settledScroll(page, quiet)).toBe(0);
        expect(await page.problems()).toEqual([]);
        await page.close();
      },
    );
  });

  describe.each([
    ["on", true],
    ["off", false],
  ])("with JavaScript %s", (_name, javaScript) => {
    it("a signup through the form, the confirm and leave links of its .eml, and the invite link between", async () => {
      const page = await open("/", "phone", javaScript);
      const address = freshEmail(engine.name.toLowerCase());
      await page.type(email, address);
      await page.click(submit);
      if (javaScript) await untilText(page, message, SUCCESS);
      else await untilText(page, "h1", "You're on the list!");
      expect(await listed(address)).toBe(true);
      expect(await shared.site.confirmedAt(address)).toBeNull();

      const mail = await shared.site.mailTo(address);
      const confirm = confirmLinks(mail).html;
      expect(confirm).not.toBe("");
      await page.goto(shared.site.local(confirm));
      expect(await text(page, "h1")).toBe("Confirm your spot on the waitlist?");
      await page.click("form button");
      await untilText(page, "h1", "Your spot is confirmed.");
      expect(await shared.site.confirmedAt(address)).toMatch(/^\d{4}-\d\d-\d\dT/);

      // Its own invite link (issue 44): a field that holds it, and with JavaScript the buttons this browser can do.
      const invite = await page.evaluate(() => (document.getElementById("invite-link") as HTMLInputElement).value);
      const code = /\/\?invite=([A-Za-z0-9_-]{12})$/.exec(invite)?.[1];
      expect(code).toBeDefined();
      const { buttons, can } = await page.evaluate(() => ({
        buttons: [...document.querySelectorAll("#invite-actions button")].map((button) => button.textContent),
        can: [
          ...(navigator.clipboard && window.isSecureContext ? ["Copy link"] : []),
          ...("share" in navigator ? ["Share"] : []),
        ],
      }));
      expect(buttons).toEqual(javaScript ? can : []);
      if (javaScript && can.includes("Copy link")) {
        await page.click("#invite-actions button");
        await waitInPage(
          page,
          "the copy button to answer",
          () => {
            const said = document.querySelector("#invite-actions button")?.textContent;
            return said === "Link copied" || said === "Select the link and copy it";
          },
          [],
        );
      }
      expect(await page.problems()).toEqual([]);

      // A creator who opens the invite link and signs up there is kept as invited by it.
      const invitee = freshEmail(`invited.${engine.name.toLowerCase()}`);
      await page.goto(`${javaScript ? shared.front.url : shared.site.url}/?invite=${code}`);
      await page.type(email, invitee);
      await page.click(submit);
      if (javaScript) await untilText(page, message, SUCCESS);
      else await untilText(page, "h1", "You're on the list!");
      expect((await shared.site.signups()).find((row) => row.email === invitee)?.invitedBy).toBe(code);

      await page.goto(shared.site.local(leaveLinks(mail).text));
      expect(await text(page, "h1")).toBe(`Remove ${maskEmail(address)} from the waitlist?`);
      await page.click("form button");
      await untilText(page, "h1", "You're off the list.");
      expect(await listed(address)).toBe(false);
      expect(await page.problems()).toEqual([]);
      await page.close();
    });
  });
});
