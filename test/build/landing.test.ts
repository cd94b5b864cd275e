import { builtPage } from "./built-page";

// What a visitor without JavaScript gets: the prerendered HTML.
const doc = builtPage("/");
const text = (selector: string) => doc.querySelector(selector)?.textContent?.replace(/\s+/g, " ").trim();

describe("public/index.html", () => {
  it("is English", () => {
    expect(doc.documentElement.getAttribute("lang")).toBe("en");
  });

  it("prerenders the waitlist form posting to the site root, with nothing Netlify Forms would detect", () => {
    const form = doc.querySelector('form[name="waitlist"]')!;
    expect(form).not.toBeNull();
    expect(form.getAttribute("method")).toBe("POST");
    expect(form.getAttribute("action")).toBe("/");
    // With form detection on, Netlify Forms would take the POST before the signup function sees it.
    expect(doc.querySelectorAll("form[netlify], form[data-netlify], form[netlify-honeypot]")).toHaveLength(0);
    expect(form.hasAttribute("novalidate")).toBe(false);
  });

  it("carries the hidden form-name, the honeypot and a required e-mail input", () => {
    const form = doc.querySelector('form[name="waitlist"]')!;
    const formName = form.querySelector('input[name="form-name"]')!;
    expect(formName.getAttribute("type")).toBe("hidden");
    expect(formName.getAttribute("value")).toBe("waitlist");
    const honeypot = form.querySelector('input[name="bot-field"]')!;
    expect(honeypot.getAttribute("tabindex")).toBe("-1");
    expect(honeypot.closest('[aria-hidden="true"]')).not.toBeNull();
    const email = form.querySelector('input[name="email"]')!;
    expect(email.getAttribute("type")).toBe("email");
    expect(email.hasAttribute("required")).toBe(true);
    expect(doc.querySelector(`label[for="${email.id}"]`)?.textContent).toBe("Email address");
    expect(form.querySelector('button[type="submit"]')?.textContent).toBe("Join Waitlist");
    // Exactly the fields the signup endpoint accepts, nothing else.
    const names = [...form.querySelectorAll("input")].map((input) => input.getAttribute("name"));
    expect(names.sort()).toEqual(["bot-field", "email", "form-name"]);
  });

  it("has the tagline, the pitch and the three claimed figures in the static HTML", () => {
    expect(text("h1")).toBe("grow. together.");
    expect(doc.body.textContent).toMatch(/marketplace where TikTok creators/);
    const figures = [...doc.querySelectorAll('[aria-label="At a glance"] li')].map((li) => li.textContent);
    expect(figures).toEqual(["500+creators interested", "Q4 2025expected launch", "Freeearly access"]);
  });

  it("has the features section with its three cards", () => {
    const cards = [...doc.querySelectorAll("section#features h3")].map((h3) => h3.textContent);
    expect(cards).toEqual(["AI-powered matching", "Seamless Communication", "Group Collaborations"]);
    expect(text("section#features")).toMatch(/up to 50 creators in one chat/);
    expect(doc.querySelectorAll("section#features li svg")).toHaveLength(3);
  });

  it("has the waitlist section and a footer with contact and legal links", () => {
    expect(doc.querySelector("section#waitlist form")).not.toBeNull();
    const footerLinks = [...doc.querySelectorAll("footer a")].map((a) => a.getAttribute("href"));
    expect(footerLinks).toEqual([
      expect.stringMatching(/^mailto:[^@\s]+@[^@\s]+$/),
      "/privacy-policy/",
      "/terms-of-service/",
    ]);
  });

  it("has header links to the sections and a closed mobile menu that is a native disclosure", () => {
    const header = doc.querySelector("header")!;
    const links = (selector: string) =>
      [...header.querySelectorAll(`${selector} a`)].map((a) => [a.textContent, a.getAttribute("href")]);
    expect(links('nav[aria-label="Main"]')).toEqual([
      ["Features", "#features"],
      ["Join Waitlist", "#waitlist"],
    ]);
    const menu = header.querySelector("details")!;
    expect(menu.hasAttribute("open")).toBe(false);
    expect(menu.querySelector(":scope > summary")?.textContent).toBe("Menu");
    expect(links('details nav[aria-label="Mobile"]')).toEqual(links('nav[aria-label="Main"]'));
  });

  it("has the hero's Join the Waitlist as a link, and no <button> but the form's submit", () => {
    const join = [...doc.querySelectorAll("main a")].find((a) => a.textContent === "Join the Waitlist");
    expect(join?.getAttribute("href")).toBe("#waitlist");
    expect([...doc.querySelectorAll("button")].map((button) => button.getAttribute("type"))).toEqual(["submit"]);
  });

  it("lets each section take focus and keeps it the spec's offset below the fixed header", () => {
    for (const id of ["features", "waitlist"]) expect(doc.getElementById(id)?.getAttribute("tabindex")).toBe("-1");
    const offset = [...doc.querySelectorAll("head style")]
      .map((style) => /--section-offset:\s*(\d+)px/.exec(style.textContent ?? "")?.[1])
      .filter(Boolean);
    expect(offset).toEqual(["80"]);
    const stylesheet = [...doc.querySelectorAll("style[data-href]")].map((style) => style.textContent).join("");
    expect(stylesheet).toMatch(/\[id\]\{scroll-margin-top:var\(--section-offset\)\}/);
    expect(stylesheet).toMatch(/@media \(prefers-reduced-motion:no-preference\)\{html\{scroll-behavior:smooth\}\}/);
  });

  it("has a title, description and canonical URL", () => {
    expect(doc.title).toBe("Tandem | grow. together.");
    expect(doc.querySelector('meta[name="description"]')?.getAttribute("content")).toMatch(/TikTok creators/);
    expect(doc.querySelector('link[rel="canonical"]')?.getAttribute("href")).toMatch(/^https?:\/\/[^/]+\/$/);
  });

  it("loads nothing from another origin", () => {
    const urls = [...doc.querySelectorAll("[src], link[href]")].map(
      (el) => el.getAttribute("src") ?? el.getAttribute("href")!,
    );
    const external = urls.filter(
      (url) =>
        /^(https?:)?\/\//.test(url) &&
        !url.startsWith(doc.querySelector('link[rel="canonical"]')!.getAttribute("href")!),
    );
    expect(external).toEqual([]);
  });
});
