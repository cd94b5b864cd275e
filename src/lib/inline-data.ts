/*
 * The data Gatsby's loader fetches before a page hydrates (app-data.json, the
 * page's page-data.json and its static queries' results) comes in the page:
 * after-build/inline-data.ts writes it into a <script type="application/json">
 * in the <head>, and Gatsby's loader asks here before it fetches a file
 * (gatsby-node.ts wires takeInlineResponse into its doFetch). Three requests
 * fewer on every first visit, each billed by Netlify. Each file is answered
 * once, for the page's first load: later loads, after a client-side
 * navigation, fetch as Gatsby does, so that a deploy made since the page was
 * opened is still seen (app-data.json's compilation hash).
 */

/** The id of the element that holds a page's data: {"/page-data/…json": its JSON, …}. */
export const inlineDataId = "gatsby-inline-data";

/** What Gatsby's loader reads of the XMLHttpRequest it makes. */
export interface FetchedText {
  status: number;
  responseText: string;
}

let unread: Map<string, unknown> | undefined;

/** The page's data, read from its element the first time, by URL. */
function pageData(doc: Document): Map<string, unknown> {
  if (!unread) {
    unread = new Map();
    const text = doc.getElementById(inlineDataId)?.textContent;
    if (text) {
      try {
        for (const [url, json] of Object.entries(JSON.parse(text) as Record<string, unknown>)) unread.set(url, json);
      } catch {
        // Unreadable data: the loader fetches every file, as it would without it.
      }
    }
  }
  return unread;
}

/**
 * The page's own copy of the file a GET of `url` would fetch, as the
 * loader's XMLHttpRequest would have had it, once; undefined when the page
 * carries none (or gave it already), and the loader fetches it.
 */
export function takeInlineResponse(url: string, method = "GET", doc: Document = document): FetchedText | undefined {
  if (method !== "GET") return undefined;
  const data = pageData(doc);
  if (!data.has(url)) return undefined;
  const json = data.get(url);
  data.delete(url);
  return { status: 200, responseText: JSON.stringify(json) };
}

/** Forgets what was read, for tests that load a page anew. */
export function resetInlineData(): void {
  unread = undefined;
}
