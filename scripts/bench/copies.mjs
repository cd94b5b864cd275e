// The copies of the site that npm run bench measures: made by the project's after-build steps, stripped of every
// <script> for the floor, each served by the project's own server; and the sizes of the site's files.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import * as cheerio from "cheerio";
import { fileURLToPath } from "node:url";

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const publicDir = path.join(root, "public");

/** The project's after-build steps (after-build/cli.ts), the one implementation of them. */
export function afterBuild(args) {
  return execFileSync(process.execPath, ["--import", "tsx", path.join(root, "after-build/cli.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
  });
}

/** Every HTML page of a copy, with every <script> removed, and any preload of one: no JavaScript at all. */
export function stripScripts(dir) {
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".html")) continue;
    const file = path.join(entry.parentPath, entry.name);
    const $ = cheerio.load(readFileSync(file, "utf8"));
    $('script, link[rel="preload"][as="script"], link[rel="modulepreload"]').remove();
    writeFileSync(file, $.html());
  }
}

/** The project's own server (npm run serve) over one copy, on its own port. */
export async function serve(dir, port) {
  const data = mkdtempSync(path.join(os.tmpdir(), "bench-data-"));
  const server = spawn(process.execPath, ["--import", "tsx", path.join(root, "server/serve.ts")], {
    cwd: root,
    env: {
      ...process.env,
      HOST: "127.0.0.1",
      PORT: String(port),
      PUBLIC_DIR: dir,
      WAITLIST_DB: path.join(data, "waitlist.db"),
      OUTBOX_DIR: path.join(data, "outbox"),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise((resolve, reject) => {
    let output = "";
    server.stdout.on("data", (chunk) => {
      output += chunk;
      if (output.includes("is running at")) resolve();
    });
    server.on("exit", (code) => reject(new Error(`The server for ${dir} exited with ${code}`)));
  });
  server.stdout.resume();
  return {
    origin: `http://127.0.0.1:${port}`,
    stop() {
      server.kill("SIGTERM");
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/** Raw, gzip 9 and brotli 11 sizes of the site's bundles, stylesheets and pages. */
export function fileSizes() {
  const sizes = [];
  const measure = (file) => {
    const content = readFileSync(file);
    sizes.push({
      file: `/${path.relative(publicDir, file)}`,
      raw: content.length,
      gzip: gzipSync(content, { level: 9 }).length,
      brotli: brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    });
  };
  for (const name of readdirSync(publicDir).sort()) if (/\.(js|css)$/.test(name)) measure(path.join(publicDir, name));
  for (const page of ["index.html", "privacy-policy/index.html", "terms-of-service/index.html", "404.html"]) {
    measure(path.join(publicDir, page));
  }
  return sizes;
}
