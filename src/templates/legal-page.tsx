import React, { useEffect, type ReactNode } from "react";
import { graphql, Link, type HeadProps, type PageProps } from "gatsby";
import { MDXProvider } from "@mdx-js/react";
import { site } from "../../config/site";
import { Layout } from "../components/layout";
import { Seo } from "../components/seo";
import { SiteVerification } from "../components/site-verification";
import { legalShortcodes } from "../components/legal-shortcodes";
import { SectionLink } from "../components/section-link";
import * as styles from "./legal-page.module.css";

interface TocItem {
  url: string;
  title: string;
}

/** The `## ` headings from gatsby-plugin-mdx's table of contents (a JSON field). */
export function tocItems(tableOfContents: unknown): TocItem[] {
  const items = (tableOfContents as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  return items.filter((item): item is TocItem => typeof item?.url === "string" && typeof item?.title === "string");
}

type PolicyUpdate = NonNullable<NonNullable<Queries.LegalPageQuery["mdx"]>["frontmatter"]["updates"]>[number];

/** The dated record of changes, newest first; several may share a day, so they are keyed by position. */
function ChangeList({ updates }: { updates: readonly PolicyUpdate[] }) {
  return (
    <ul>
      {updates.map((update, index) => (
        <li key={index}>
          <time dateTime={update.date}>{update.dateText}</time>: {update.summary}
        </li>
      ))}
    </ul>
  );
}

type LegalPageProps = Omit<PageProps<Queries.LegalPageQuery>, "children"> & { children?: ReactNode };

/** Renders every MDX file in content/legal (gatsby-node points each page here). */
export default function LegalPage({ data, children, location }: LegalPageProps) {
  const mdx = data.mdx!;
  const { title, effectiveDate, effectiveDateText } = mdx.frontmatter;
  const updates = mdx.frontmatter.updates ?? [];
  const toc = tocItems(mdx.tableOfContents);

  // Spec: the page scrolls to the top on load, unless a link asked for one of its sections.
  // At once: the page's CSS scrolls smoothly, which is for moving within a page.
  useEffect(() => {
    if (!location.hash) window.scrollTo({ top: 0, left: 0, behavior: "instant" });
  }, [location.pathname, location.hash]);

  return (
    <Layout>
      <SiteVerification />
      <article className={styles.article}>
        <Link to={site.routes.home} className={styles.back}>
          <span aria-hidden="true">←</span> {site.labels.backToHome}
        </Link>
        <header className={styles.intro}>
          <h1 className={styles.title}>{title}</h1>
          <p className={styles.effective}>
            Effective <time dateTime={effectiveDate}>{effectiveDateText}</time>
            {updates[0] && (
              <>
                {" · "}Last updated <time dateTime={updates[0].date}>{updates[0].dateText}</time>
              </>
            )}
          </p>
          {updates.length > 0 && (
            <>
              {/* A native disclosure: it opens without JavaScript, and the record stays one tap away. */}
              <details className={styles.changes}>
                <summary>What changed</summary>
                <ChangeList updates={updates} />
              </details>
              {/* Printed, a closed disclosure would leave the record out: a copy of the page keeps it, open. */}
              <section className={styles.changesPrinted}>
                <h2>What changed</h2>
                <ChangeList updates={updates} />
              </section>
            </>
          )}
        </header>
        {toc.length > 0 && (
          <nav className={styles.toc} aria-label="Contents">
            <p className={styles.tocTitle}>Contents</p>
            <ol>
              {toc.map((item) => (
                <li key={item.url}>
                  <a href={item.url}>{item.title}</a>
                </li>
              ))}
            </ol>
          </nav>
        )}
        <div className={styles.body}>
          <MDXProvider components={legalShortcodes}>{children}</MDXProvider>
        </div>
        <aside className={styles.cta} aria-label="Early access">
          <p>
            <strong>Ready to grow together?</strong> Early access to {site.name} is free.
          </p>
          <SectionLink section={site.sections.waitlist} onLanding={false} className="btn btn-primary">
            {site.labels.joinTheWaitlist}
          </SectionLink>
        </aside>
      </article>
    </Layout>
  );
}

export const query = graphql`
  query LegalPage($id: String!) {
    mdx(id: { eq: $id }) {
      frontmatter {
        title
        slug
        description
        # Formatted at build time: Intl.DateTimeFormat would cost the page
        # tens of milliseconds of main thread while it comes alive on a phone.
        effectiveDate(formatString: "YYYY-MM-DD")
        effectiveDateText: effectiveDate(formatString: "MMMM D, YYYY")
        updates {
          date(formatString: "YYYY-MM-DD")
          dateText: date(formatString: "MMMM D, YYYY")
          summary
        }
      }
      tableOfContents(maxDepth: 2)
    }
  }
`;

export function Head({ data }: HeadProps<Queries.LegalPageQuery>) {
  const { title, slug, description } = data.mdx!.frontmatter;
  return <Seo title={title} description={description} path={`/${slug}/`} />;
}
