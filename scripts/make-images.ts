// Renders the favicon, the social-sharing image and the PNG icons, with Chromium, from config/site.ts and the logo:
//   npx tsx scripts/make-images.ts
// The results are committed in static/; run this again after a brand change.
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { chromium, type Page } from "playwright-core";
import { renderToStaticMarkup } from "react-dom/server";
import { createElement } from "react";
import { LogoMark } from "../src/components/icons";
import { site } from "../config/site";
import chromiumSettings from "./chromium.json";
import { findChromium, machine } from "./find-chromium";

const root = path.resolve(__dirname, "..");
const { name, tagline, groupChatCap: cap, colors } = site;
// The logo as the header shows it, as a standalone file: the svg element's own attributes give way to a namespace.
const logo = renderToStaticMarkup(createElement(LogoMark)).replace(
  /^<svg[^>]*>/,
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">',
);
mkdirSync(path.join(root, "static"), { recursive: true });
writeFileSync(path.join(root, "static/favicon.svg"), `${logo}\n`);
console.log("static/favicon.svg");

const card = `<!doctype html><html><head><style>
body{margin:0;width:1200px;height:630px;overflow:hidden;font-family:"DejaVu Sans",system-ui,sans-serif;color:${colors.heroInk};
background:radial-gradient(900px 480px at 88% -8%,${colors.brand}8c,transparent 62%),
radial-gradient(800px 460px at -8% 110%,${colors.accent}99,transparent 62%),${colors.heroBg}}
.wrap{position:absolute;inset:72px 80px}
.brand{display:flex;align-items:center;gap:22px;font-size:44px;font-weight:800;letter-spacing:-1px}
.brand svg{width:72px;height:72px}
h1{margin:96px 0 0;font-size:132px;line-height:1;letter-spacing:-6px;font-weight:800;white-space:nowrap}
h1 span{background:linear-gradient(90deg,${colors.pink},${colors.glow});-webkit-background-clip:text;color:transparent}
p{position:absolute;bottom:0;margin:0;font-size:32px;color:${colors.heroSoft};white-space:nowrap}
</style></head><body><div class="wrap">
<div class="brand">${logo}<span>${name}</span></div>
<h1>${tagline.split(" ")[0]} <span>${tagline.split(" ").slice(1).join(" ")}</span></h1>
<p>Where TikTok creators find collaborators · groups of up to ${cap}</p>
</div></body></html>`;

const icon = `<!doctype html><html><head><style>html,body{margin:0;background:transparent}svg{display:block;width:100vw;height:100vh}</style></head><body>${logo}</body></html>`;

async function main(): Promise<void> {
  const browser = await chromium.launch({ executablePath: findChromium(machine), args: chromiumSettings.flags });
  const shots = [
    [card, 1200, 630, "og-image.png", false],
    [icon, 32, 32, "favicon.png", true],
    [icon, 180, 180, "apple-touch-icon.png", true],
  ] as const;
  for (const [html, width, height, file, transparent] of shots) {
    const page: Page = await browser.newPage({ viewport: { width, height } });
    await page.setContent(html);
    await page.screenshot({ path: path.join(root, "static", file), omitBackground: transparent });
    await page.close();
    console.log(`static/${file} ${width}×${height}`);
  }
  await browser.close();
}

void main();
