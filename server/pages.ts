import { site } from "../src/site";
import { contentSecurityPolicy, sha256 } from "./headers";

/** Escapes text for HTML content and quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The stylesheet of the result page; exported so security headers can hash it. */
export const resultPageStyle = `
body{margin:0;min-height:100vh;display:grid;place-items:center;padding:1.25rem;box-sizing:border-box;
font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;line-height:1.6;
color:#f5f3ff;background:#120f24}
main{max-width:32rem;padding:2.5rem 2rem;border-radius:21px;background:#fff;color:#0f0d1a;text-align:center}
.brand{margin:0 0 1.5rem;font-weight:800;letter-spacing:-.02em;color:#c0134a}
h1{margin:0 0 .75rem;font-size:1.75rem;line-height:1.2;letter-spacing:-.02em}
p{margin:0 0 1.5rem;color:#4a4760}
a{display:inline-block;padding:.7rem 1.4rem;border-radius:999px;background:#c0134a;color:#fff;font-weight:650;text-decoration:none}
a:hover{background:#9d0f3c}a:focus-visible{outline:3px solid #1b5fd6;outline-offset:3px}`.trim();

/** The result page has one inline stylesheet and no script. */
export const resultPagePolicy = contentSecurityPolicy({
  scripts: [],
  styles: [sha256(resultPageStyle)],
  styleAttributes: [],
});

/**
 * The small page a visitor without JavaScript sees after the native form
 * post (and any refusal of the server's own), like Netlify's own success
 * page, in the site's colours.
 */
export function renderResultPage({ heading, message }: { heading: string; message: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(heading)} | ${escapeHtml(site.name)}</title>
<style>${resultPageStyle}</style>
</head>
<body>
<main>
<p class="brand">${escapeHtml(site.name)} · ${escapeHtml(site.tagline)}</p>
<h1>${escapeHtml(heading)}</h1>
<p>${escapeHtml(message)}</p>
<a href="/">Back to ${escapeHtml(site.name)}</a>
</main>
</body>
</html>
`;
}
