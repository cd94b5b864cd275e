import escapeHtml from "escape-html";
import { site } from "../../config/site";
import { contentSecurityPolicy, sha256 } from "../../http/headers";

const { colors } = site;

/** Escapes text for HTML content and quoted attributes. */

/** The stylesheet of the result page; its hash is in the page's CSP (resultPagePolicy). */
const resultPageStyle = `
body{margin:0;min-height:100vh;display:grid;place-items:center;padding:1.25rem;box-sizing:border-box;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;line-height:1.6;
color:${colors.heroInk};background:${colors.heroBg}}
main{box-sizing:border-box;width:100%;max-width:32rem;padding:2.5rem 1.5rem;border-radius:21px;background:${colors.paper};color:${colors.ink};text-align:center}
.brand{margin:0 0 1.5rem;font-weight:800;letter-spacing:-.02em;color:${colors.brand}}
h1{margin:0 0 .75rem;font-size:1.75rem;line-height:1.2;letter-spacing:-.02em;overflow-wrap:anywhere}
p{margin:0 0 1.5rem;color:${colors.inkSoft}}
a,button{display:inline-block;padding:.7rem 1.4rem;border:0;border-radius:999px;background:${colors.brand};color:${colors.paper};
font:inherit;font-weight:650;text-decoration:none;cursor:pointer}
a:hover,button:hover{background:${colors.brandStrong}}a:focus-visible,button:focus-visible{outline:3px solid ${colors.focus};outline-offset:3px}
form{margin:0 0 1rem}form+a,.links a{background:none;color:${colors.brand};text-decoration:underline}
form+a:hover,.links a:hover{background:none;color:${colors.brandStrong}}
.links{font-size:.9rem}.links a{display:inline;padding:0;border-radius:0;font-weight:inherit}
.links+a{background:none;color:${colors.brand};text-decoration:underline}.links+a:hover{background:none;color:${colors.brandStrong}}`.trim();

/** The result page has one inline stylesheet and no script. */
export const resultPagePolicy = contentSecurityPolicy({
  scripts: [],
  styles: [sha256(resultPageStyle)],
  styleAttributes: [],
});

/** A button that posts hidden fields, such as the leave page's "Leave the waitlist". */
export interface PageAction {
  label: string;
  url: string;
  fields: Record<string, string>;
}

/** A plain link in a line of text below the button: the Privacy Policy, "This wasn't me". */
export interface PageLink {
  label: string;
  url: string;
}

/**
 * The small page a visitor without JavaScript sees after the native form
 * post (and any refusal of the server's own), like Netlify's own success
 * page, in the site's colours; with `action`, a button above the way home,
 * and with `links`, a line of links below the button.
 */
export function renderResultPage({
  heading,
  message,
  action,
  links = [],
}: {
  heading: string;
  message: string;
  action?: PageAction;
  links?: PageLink[];
}): string {
  const form = action
    ? `<form method="post" action="${escapeHtml(action.url)}">
${Object.entries(action.fields)
  .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">\n`)
  .join("")}<button type="submit">${escapeHtml(action.label)}</button>
</form>
`
    : "";
  const line =
    links.length > 0
      ? `<p class="links">${links.map((link) => `<a href="${escapeHtml(link.url)}">${escapeHtml(link.label)}</a>`).join(" · ")}</p>\n`
      : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${escapeHtml(heading)} | ${escapeHtml(site.name)}</title>
<style>${resultPageStyle}</style>
</head>
<body>
<main>
<p class="brand">${escapeHtml(site.name)} · ${escapeHtml(site.tagline)}</p>
<h1>${escapeHtml(heading)}</h1>
<p>${escapeHtml(message)}</p>
${form}${line}<a href="/">Back to ${escapeHtml(site.name)}</a>
</main>
</body>
</html>
`;
}
