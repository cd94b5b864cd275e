// What a visit to `/` costs in web requests and bandwidth: Chromium loading the built site (public/, as
// `npm run build:netlify` leaves it) from the project's own server, which sends the headers and compressed copies
// the build tests hold equal to Netlify's. Every request it made, and every byte it received, headers included.
import { existsSync } from "node:fs";
import path from "node:path";
import { chromium } from "playwright-core";
import { startSite } from "../../test/support/site";
import chromiumSettings from "../chromium.json";
import { findChromium, machine } from "../find-chromium";

export interface Visit {
  requests: number;
  bytes: number;
  /** Each request's path and bytes, for the report. */
  files: { path: string; bytes: number }[];
}

export async function measureVisit(): Promise<Visit> {
  if (!existsSync(path.join(__dirname, "../../public/index.html"))) {
    throw new Error(
      "public/index.html is missing: run `npm run build:netlify` first; the bench prices each signup's visit to / from the built site.",
    );
  }
  const site = await startSite();
  const browser = await chromium.launch({ executablePath: findChromium(machine), args: chromiumSettings.flags });
  try {
    const page = await browser.newPage();
    const sized: Promise<{ path: string; bytes: number }>[] = [];
    page.on("requestfinished", (request) =>
      sized.push(
        request.sizes().then((sizes) => ({
          path: new URL(request.url()).pathname,
          bytes: sizes.responseHeadersSize + sizes.responseBodySize,
        })),
      ),
    );
    // Until the network has been quiet for half a second: the page data and bundles its loader fetches after the paint.
    await page.goto(`${site.url}/`, { waitUntil: "networkidle" });
    const files = await Promise.all(sized);
    return { requests: files.length, bytes: files.reduce((sum, file) => sum + file.bytes, 0), files };
  } finally {
    await browser.close();
    await site.stop();
  }
}
