// Renders the social-sharing image and the PNG icons from HTML with Chromium:
//   node scripts/make-images.mjs
// The results are committed in static/; run this again after a brand change.
import { mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const chromiumSettings = createRequire(import.meta.url)("./chromium.json");
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const site = readFileSync(path.join(root, "src/site.ts"), "utf8");
const pick = (pattern) => pattern.exec(site)?.[1];
const name = pick(/const name = "([^"]+)"/);
const tagline = pick(/tagline: "([^"]+)"/);
const cap = pick(/groupChatCap: (\d+)/);
const logo = readFileSync(path.join(root, "static/favicon.svg"), "utf8");

const card = `<!doctype html><html><head><style>
body{margin:0;width:1200px;height:630px;overflow:hidden;font-family:"DejaVu Sans",system-ui,sans-serif;color:#f5f3ff;
background:radial-gradient(900px 480px at 88% -8%,rgba(192,19,74,.55),transparent 62%),
radial-gradient(800px 460px at -8% 110%,rgba(14,124,134,.6),transparent 62%),#120f24}
.wrap{position:absolute;inset:72px 80px}
.brand{display:flex;align-items:center;gap:22px;font-size:44px;font-weight:800;letter-spacing:-1px}
.brand svg{width:72px;height:72px}
h1{margin:96px 0 0;font-size:132px;line-height:1;letter-spacing:-6px;font-weight:800;white-space:nowrap}
h1 span{background:linear-gradient(90deg,#ff6b9a,#7ee7f0);-webkit-background-clip:text;color:transparent}
p{position:absolute;bottom:0;margin:0;font-size:32px;color:#c9c4e6;white-space:nowrap}
</style></head><body><div class="wrap">
<div class="brand">${logo}<span>${name}</span></div>
<h1>${tagline.split(" ")[0]} <span>${tagline.split(" ").slice(1).join(" ")}</span></h1>
<p>Where TikTok creators find collaborators · groups of up to ${cap}</p>
</div></body></html>`;

const icon = `<!doctype html><html><head><style>html,body{margin:0;background:transparent}svg{display:block;width:100vw;height:100vh}</style></head><body>${logo}</body></html>`;

const browser = await chromium.launch({
  executablePath: process.env.CHROME_PATH ?? chromiumSettings.path,
  args: chromiumSettings.flags,
});
mkdirSync(path.join(root, "static"), { recursive: true });
const shots = [
  [card, 1200, 630, "og-image.png", false],
  [icon, 32, 32, "favicon.png", true],
  [icon, 180, 180, "apple-touch-icon.png", true],
];
for (const [html, width, height, file, transparent] of shots) {
  const page = await browser.newPage({ viewport: { width, height } });
  await page.setContent(html);
  await page.screenshot({ path: path.join(root, "static", file), omitBackground: transparent });
  await page.close();
  console.log(`static/${file} ${width}×${height}`);
}
await browser.close();
