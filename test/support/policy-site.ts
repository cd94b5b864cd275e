import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { site } from "../../config/site";
import { LaunchMailTool, PolicyFields } from "../../src/components/legal-shortcodes";

/*
 * The deployed site as the founders' launch commands read it (cli/commands/launch-list.ts): its Privacy Policy page on
 * 127.0.0.1, where the launch mail tool is what the site's own <LaunchMailTool /> renders for the policy's frontmatter,
 * so a change to how the page marks the tool reaches the commands' tests too.
 */

export interface PolicySite {
  /** The site's address, for SITE_URL. */
  url: string;
  /**
   * What the served policy's frontmatter names from now on: a tool, or none (undefined, as before one is chosen);
   * several: a page that is no one policy's (a cache mixing two deploys), each tool in a sentence of its own;
   * null: the page is not there (a 404).
   */
  names(tool: string | readonly string[] | undefined | null): void;
  /** How many times the page was asked for. */
  requests(): number;
  stop(): Promise<void>;
}

/** The Privacy Policy page, its launch mailing service's sentence as the site renders it for each tool (or none). */
export function policyPage(tool: string | readonly string[] | undefined): string {
  const sentences = (typeof tool === "string" || tool === undefined ? [tool] : tool).map((launchMailTool) => {
    const named = renderToStaticMarkup(
      createElement(PolicyFields, { pageContext: { frontmatter: { launchMailTool } } }, createElement(LaunchMailTool)),
    );
    return `<li>and, when early access opens, the mailing service that sends the launch e-mail for us, ${named}: for each person we let in, we give it three things and nothing else.</li>`;
  });
  const { title } = site.legalPages.privacyPolicy;
  return `<!doctype html><html lang="en"><title>${title}</title><h1>${title}</h1><ul>${sentences.join("")}</ul></html>`;
}

/** Serves the Privacy Policy naming `tool` (none by default) until stop(). */
export async function startPolicySite(tool?: string): Promise<PolicySite> {
  let named: string | readonly string[] | undefined | null = tool;
  let requests = 0;
  const path = `/${site.legalPages.privacyPolicy.slug}/`;
  const server = createServer((req, res) => {
    if (req.url === path) requests++;
    if (req.url !== path || named === null) {
      res.writeHead(404, { "Content-Type": "text/html; charset=utf-8" }).end("<!doctype html><title>Not found</title>");
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(policyPage(named));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    names: (next) => {
      named = next;
    },
    requests: () => requests,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // fetch keeps its connection open for the next request: none is coming.
        server.closeAllConnections();
      }),
  };
}
