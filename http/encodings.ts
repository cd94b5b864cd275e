import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";

/*
 * The compressed copies of public/ that npm start sends (brotli at its best
 * quality, gzip at level 9): made once after the build (after-build/precompress.ts),
 * picked per request by the server (server/app.ts) from what the browser accepts.
 */

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Each encoding: the extension of its copies, and how to make one. */
export const encodings: readonly { extension: string; compress: (data: Buffer) => Promise<Buffer> }[] = [
  {
    extension: ".br",
    compress: (data) =>
      brotli(data, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
        },
      }),
  },
  { extension: ".gz", compress: (data) => gzipAsync(data, { level: constants.Z_BEST_COMPRESSION }) },
];
