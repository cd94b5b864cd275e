import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { encodings } from "../http/encodings";
import { isPrivatePath } from "../http/private-files";

/*
 * The npm start server sends public/ compressed ahead of time: brotli at its
 * best quality (11) and gzip at level 9, done once after the build instead of
 * a quick pass on every request (the `compression` middleware's brotli is
 * quality 4). On the landing page that is about 6 KB less to download.
 * express-static-gzip picks the copy the browser accepts; Netlify compresses
 * on its own and ignores these files.
 */

/** Text the browser fetches (never the build's private files). */
const compressible = /\.(html|js|css|json|xml|txt|svg)$/;

const copyOf = new RegExp(
  `${compressible.source.slice(0, -1)}(${encodings.map((e) => `\\${e.extension}`).join("|")})$`,
);

export interface PrecompressSummary {
  files: number;
  bytes: number;
  brotliBytes: number;
}

/**
 * Writes name.br and name.gz beside every compressible file in publicDir, and
 * removes copies left from an earlier build so none can outlive its file. A
 * copy that would not be smaller than its file is not written; the server then
 * sends the file itself.
 */
export async function precompress(publicDir: string): Promise<PrecompressSummary> {
  // Files only: Gatsby names some folders like files (public/page-data/404.html/).
  const names = readdirSync(publicDir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(publicDir, path.join(entry.parentPath, entry.name)));
  for (const name of names.filter((name) => copyOf.test(name))) rmSync(path.join(publicDir, name));

  const summary: PrecompressSummary = { files: 0, bytes: 0, brotliBytes: 0 };
  await Promise.all(
    names
      .filter((name) => compressible.test(name) && !isPrivatePath(`/${name.split(path.sep).join("/")}`))
      .map(async (name) => {
        const file = path.join(publicDir, name);
        const content = readFileSync(file);
        summary.files += 1;
        summary.bytes += content.length;
        for (const encoding of encodings) {
          const compressed = await encoding.compress(content);
          if (encoding.extension === ".br") summary.brotliBytes += Math.min(compressed.length, content.length);
          if (compressed.length < content.length) writeFileSync(`${file}${encoding.extension}`, compressed);
        }
      }),
  );
  return summary;
}
