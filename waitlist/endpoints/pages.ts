import escapeHtml from "escape-html";
import { site } from "../../config/site";
import { contentSecurityPolicy, sha256 } from "../../http/headers";
import { htmlDocument } from "../html-document";

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
.links+a{background:none;color:${colors.brand};text-decoration:underline}.links+a:hover{background:none;color:${colors.brandStrong}}
.invite{margin:0 0 1.5rem;padding:1.25rem 0 0;border-top:1px solid ${colors.line};text-align:left}
.invite h2{margin:0 0 .5rem;font-size:1.15rem;line-height:1.3}.invite p{margin:0 0 .75rem}
.invite label{display:block;margin:0 0 .35rem;font-weight:650;color:${colors.ink}}
.invite input{box-sizing:border-box;width:100%;padding:.65rem .75rem;border:1px solid ${colors.fieldBorder};border-radius:10px;
font:inherit;font-size:.95rem;color:${colors.ink};background:${colors.paper}}
.invite input:focus-visible{outline:3px solid ${colors.focus};outline-offset:2px}
.invite .actions{display:flex;flex-wrap:wrap;gap:.5rem;margin:.75rem 0 0}.invite .actions:empty{display:none}
.invite .count{margin:.75rem 0 0;color:${colors.ink}}`.trim();

/**
 * The invite section's one script, from the first paint: the field selects the whole link when it takes focus, and
 * two buttons appear where the browser can do what they say (Copy link, with the Clipboard API; Share, with the Web
 * Share API). Without it the field is there all the same, to select and copy by hand.
 */
const inviteScript = `(()=>{const f=document.getElementById("invite-link"),a=document.getElementById("invite-actions");if(!f||!a)return;f.addEventListener("focus",()=>f.select());const b=(t,o)=>{const e=document.createElement("button");e.type="button";e.textContent=t;e.addEventListener("click",o);a.append(e);return e};if(navigator.clipboard&&window.isSecureContext){const c=b("Copy link",async()=>{try{await navigator.clipboard.writeText(f.value);c.textContent="Link copied"}catch{f.focus();c.textContent="Select the link and copy it"}})}if(navigator.share)b("Share",()=>navigator.share({title:document.title,url:f.value}).catch(()=>{}))})();`;

/** The result page has one inline stylesheet and no script. */
export const resultPagePolicy = contentSecurityPolicy({
  scripts: [],
  styles: [sha256(resultPageStyle)],
  styleAttributes: [],
});

/** A confirmed signup's page holds the invite section's script too: that one script, by its hash. */
export const invitePagePolicy = contentSecurityPolicy({
  scripts: [sha256(inviteScript)],
  styles: [sha256(resultPageStyle)],
  styleAttributes: [],
});

/** A confirmed signup's invite link, and how many have joined through it and confirmed (waitlist/invites.ts). */
export interface PageInvite {
  url: string;
  confirmedInvites: number;
}

const joined = (count: number) =>
  count === 0
    ? "Nobody has joined through it yet: each creator who does and confirms counts here."
    : `${count} ${count === 1 ? "creator has" : "creators have"} joined through your link and confirmed.`;

function inviteSection({ url, confirmedInvites }: PageInvite): string {
  return `<section class="invite" aria-labelledby="invite-heading">
<h2 id="invite-heading">Grow together: invite a creator</h2>
<p>Share your own invite link with creators you would like to work with.</p>
<label for="invite-link">Your invite link</label>
<input id="invite-link" type="url" value="${escapeHtml(url)}" readonly>
<div class="actions" id="invite-actions"></div>
<p class="count">${escapeHtml(joined(confirmedInvites))}</p>
</section>
<script>${inviteScript}</script>
`;
}

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
  invite,
}: {
  heading: string;
  message: string;
  action?: PageAction;
  links?: PageLink[];
  invite?: PageInvite;
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
  return htmlDocument({
    title: `${heading} | ${site.name}`,
    head: ['<meta name="robots" content="noindex">', '<link rel="icon" href="/favicon.svg" type="image/svg+xml">'],
    style: resultPageStyle,
    body: `<body>
<main>
<p class="brand">${escapeHtml(site.name)} · ${escapeHtml(site.tagline)}</p>
<h1>${escapeHtml(heading)}</h1>
<p>${escapeHtml(message)}</p>
${form}${line}${invite ? inviteSection(invite) : ""}<a href="/">Back to ${escapeHtml(site.name)}</a>
</main>
</body>`,
  });
}
