import React from "react";
import { render, screen, within } from "@testing-library/react";
import { Helmet } from "react-helmet";
import { renderToStaticMarkup } from "react-dom/server";
import { Link, type HeadProps, type PageProps } from "gatsby";
import LegalPage, { Head, tocItems } from "./legal-page";

const data = {
  mdx: {
    frontmatter: {
      title: "Privacy Policy",
      slug: "privacy-policy",
      description: "How we handle your information.",
      effectiveDate: "2025-06-01",
      effectiveDateText: "June 1, 2025",
    },
    tableOfContents: {
      items: [
        { url: "#information-we-collect", title: "Information We Collect" },
        { url: "#contact-us", title: "Contact Us" },
      ],
    },
  },
} as unknown as Queries.LegalPageQuery;

const updated = {
  mdx: {
    ...data.mdx,
    frontmatter: {
      ...data.mdx!.frontmatter,
      updates: [
        { date: "2026-11-23", dateText: "November 23, 2026", summary: "Added the confirm step." },
        { date: "2025-09-01", dateText: "September 1, 2025", summary: "Added the leave link." },
      ],
    },
  },
} as unknown as Queries.LegalPageQuery;

function renderPage(hash = "", pageData = data) {
  const location = { pathname: "/privacy-policy/", hash, key: "k" } as PageProps["location"];
  const props = { data: pageData, location } as unknown as PageProps<Queries.LegalPageQuery>;
  return render(
    <LegalPage {...props}>
      <h2 id="information-we-collect">Information We Collect</h2>
      <h2 id="contact-us">Contact Us</h2>
    </LegalPage>,
  );
}

beforeEach(() => {
  window.history.pushState({}, "", "/privacy-policy/");
  window.scrollTo = jest.fn();
  jest.mocked(Link).mockClear();
});

describe("legal page template", () => {
  it("shows the title and the effective date, machine-readable in its time element", () => {
    renderPage();
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Privacy Policy");
    const effective = screen.getByText(/^Effective/);
    expect(effective).toHaveTextContent("Effective June 1, 2025");
    expect(within(effective).getByText("June 1, 2025")).toHaveAttribute("datetime", "2025-06-01");
  });

  it("says nothing of changes while a policy has none", () => {
    renderPage();
    expect(screen.queryByText(/Last updated/)).toBeNull();
    expect(screen.queryByText("What changed")).toBeNull();
  });

  it("keeps the effective date and adds the last change's date, with what changed behind a native disclosure", () => {
    renderPage("", updated);
    const line = screen.getByText(/^Effective/);
    expect(line).toHaveTextContent("Effective June 1, 2025 · Last updated November 23, 2026");
    expect(within(line).getByText("November 23, 2026")).toHaveAttribute("datetime", "2026-11-23");
    // <details> opens without JavaScript; closed at first, so the policy itself comes first.
    const summary = screen.getByText("What changed", { selector: "summary" });
    const details = summary.closest("details")!;
    expect(summary.tagName).toBe("SUMMARY");
    expect(details).not.toHaveAttribute("open");
    expect(
      within(details)
        .getAllByRole("listitem")
        .map((item) => item.textContent),
    ).toEqual(["November 23, 2026: Added the confirm step.", "September 1, 2025: Added the leave link."]);
    expect(within(details).getByText("September 1, 2025")).toHaveAttribute("datetime", "2025-09-01");
    // The copy that print shows (its CSS hides the disclosure and shows this instead; e2e/print.test.ts) holds the same.
    const printed = screen.getByRole("heading", { name: "What changed" }).closest("section")!;
    expect(
      within(printed)
        .getAllByRole("listitem")
        .map((item) => item.textContent),
    ).toEqual(
      within(details)
        .getAllByRole("listitem")
        .map((item) => item.textContent),
    );
  });

  it("links every section from the table of contents", () => {
    renderPage();
    const toc = within(screen.getByRole("navigation", { name: "Contents" }));
    expect(toc.getAllByRole("link").map((link) => [link.textContent, link.getAttribute("href")])).toEqual([
      ["Information We Collect", "#information-we-collect"],
      ["Contact Us", "#contact-us"],
    ]);
  });

  it("links Back to Home to the landing page", () => {
    renderPage();
    expect(screen.getByRole("link", { name: /back to home/i })).toHaveAttribute("href", "/");
  });

  it("Join the Waitlist is a link to /#waitlist that carries the scroll intent", () => {
    renderPage();
    // Before hydration (and without JavaScript) the browser lands on the section; after it, Gatsby's
    // Link navigates client-side with the intent, and the landing page scrolls 200 ms later.
    expect(screen.getByRole("link", { name: "Join the Waitlist" })).toHaveAttribute("href", "/#waitlist");
    expect(Link).toHaveBeenCalledWith(
      expect.objectContaining({ to: "/#waitlist", state: { scrollTo: "waitlist" }, children: "Join the Waitlist" }),
      {},
    );
  });

  it("scrolls to the top when it opens", () => {
    renderPage();
    expect(window.scrollTo).toHaveBeenCalledWith({ top: 0, left: 0, behavior: "instant" });
  });

  it("leaves the position to the browser when a link asks for a section", () => {
    renderPage("#contact-us");
    expect(window.scrollTo).not.toHaveBeenCalled();
  });

  it("adds the verification meta tag with react-helmet", () => {
    renderPage();
    const metas = Helmet.peek().metaTags as unknown as { name?: string; content?: string }[];
    const verification = metas.find((tag) => tag.name === "tiktok-developers-site-verification");
    expect(verification?.content).toBeTruthy();
  });

  it("gives the page its own title, description and canonical URL", () => {
    const head = new DOMParser().parseFromString(
      renderToStaticMarkup(<Head {...({ data } as HeadProps<Queries.LegalPageQuery>)} />),
      "text/html",
    );
    expect(head.title).toBe("Privacy Policy | Tandem");
    expect(head.querySelector('meta[name="description"]')?.getAttribute("content")).toBe(
      "How we handle your information.",
    );
    expect(head.querySelector('link[rel="canonical"]')?.getAttribute("href")).toMatch(/\/privacy-policy\/$/);
    expect(head.querySelector('meta[property="og:title"]')?.getAttribute("content")).toBe("Privacy Policy | Tandem");
  });
});

describe("tocItems", () => {
  it("keeps well-formed entries and drops anything else", () => {
    expect(tocItems(null)).toEqual([]);
    expect(tocItems({})).toEqual([]);
    expect(tocItems({ items: [{ url: "#a", title: "A" }, { title: "no url" }, null] })).toEqual([
      { url: "#a", title: "A" },
    ]);
  });
});
