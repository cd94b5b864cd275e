import { readFileSync } from "node:fs";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { formType, removeDir, request, startServer, type TestServer } from "../support/harness";

let server: TestServer;
beforeAll(async () => {
  server = await startServer("start");
});
afterAll(async () => {
  await server.close();
  removeDir(server.dir);
});

const get = (path: string, headers: Record<string, string> = {}) => request(`${server.url}${path}`, { headers });

describe("the npm start server's static side", () => {
  it.each([
    ["/", "public, max-age=0, must-revalidate"],
    ["/privacy-policy/", "public, max-age=0, must-revalidate"],
    ["/page-data/index/page-data.json", "public, max-age=0, must-revalidate"],
    ["/page-data/app-data.json", "public, max-age=0, must-revalidate"],
    ["/favicon.svg", "public, max-age=0, must-revalidate"],
    ["/app-0123456789abcdef0123.js", "public, max-age=31536000, immutable"],
    ["/styles.0123456789abcdef0123.css", "public, max-age=31536000, immutable"],
    ["/static/d/0123456789abcdef/logo.svg", "public, max-age=31536000, immutable"],
  ])("serves %s with Cache-Control: %s", async (path, cacheControl) => {
    const reply = await get(path);
    expect(reply.status).toBe(200);
    expect(reply.headers["cache-control"]).toBe(cacheControl);
  });

  it("serves /privacy-policy by sending the visitor to /privacy-policy/", async () => {
    const bare = await get("/privacy-policy");
    expect(bare.status).toBe(301);
    expect(bare.headers.location).toBe("/privacy-policy/");
    const slashed = await get("/privacy-policy/");
    expect(slashed.body).toContain("<h1>Privacy Policy</h1>");
  });

  it("answers unknown paths 404 with the site's 404 page", async () => {
    const reply = await get("/no-such-page/");
    expect(reply.status).toBe(404);
    expect(reply.headers["content-type"]).toMatch(/^text\/html/);
    expect(reply.body).toContain("This page took a different route");
  });

  it("answers a POST to another path 404, leaving it to no endpoint", async () => {
    const reply = await request(`${server.url}/privacy-policy/`, { method: "POST", body: "x=1" });
    expect(reply.status).toBe(404);
  });

  it.each([
    ["br", ".br", brotliDecompressSync],
    ["gzip", ".gz", gunzipSync],
  ] as const)("sends the copy compressed with %s at build time", async (encoding, extension, decompress) => {
    const file = path.join(server.dir, "public", "app-0123456789abcdef0123.js");
    const reply = await get("/app-0123456789abcdef0123.js", { "Accept-Encoding": encoding });
    expect(reply.headers["content-encoding"]).toBe(encoding);
    expect(reply.headers["content-type"]).toMatch(/^text\/javascript; charset=utf-8$/i);
    expect(reply.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(reply.headers.vary).toMatch(/Accept-Encoding/);
    expect(reply.raw.equals(readFileSync(`${file}${extension}`))).toBe(true);
    expect(decompress(reply.raw).equals(readFileSync(file))).toBe(true);
  });

  it("prefers brotli when the browser takes both", async () => {
    const reply = await get("/app-0123456789abcdef0123.js", { "Accept-Encoding": "gzip, deflate, br" });
    expect(reply.headers["content-encoding"]).toBe("br");
  });

  it("gives a compressed page the page's own headers", async () => {
    const plain = await get("/privacy-policy/");
    const compressed = await get("/privacy-policy/", { "Accept-Encoding": "br" });
    expect(compressed.headers["content-encoding"]).toBe("br");
    expect(compressed.headers["content-type"]).toMatch(/^text\/html; charset=utf-8$/i);
    expect(compressed.headers["content-security-policy"]).toBe(plain.headers["content-security-policy"]);
    expect(compressed.headers["cache-control"]).toBe("public, max-age=0, must-revalidate");
    expect(brotliDecompressSync(compressed.raw).toString()).toBe(plain.body);
  });

  it("sends the file itself to a browser that takes no compression", async () => {
    const reply = await get("/app-0123456789abcdef0123.js", { "Accept-Encoding": "identity" });
    expect(reply.headers["content-encoding"]).toBeUndefined();
    expect(reply.raw.equals(readFileSync(path.join(server.dir, "public", "app-0123456789abcdef0123.js")))).toBe(true);
  });

  it("answers a POST to a page 404 in plain, uncompressed text", async () => {
    const reply = await request(`${server.url}/privacy-policy/`, {
      method: "POST",
      headers: { "Accept-Encoding": "br", ...formType },
      body: "x=1",
    });
    expect(reply.status).toBe(404);
    expect(reply.headers["content-encoding"]).toBeUndefined();
    expect(reply.body).toBe("Not found.\n");
  });

  it("sends an ETag and answers a matching If-None-Match with 304", async () => {
    const first = await get("/");
    const etag = first.headers.etag!;
    expect(etag).toBeTruthy();
    const again = await get("/", { "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(again.body).toBe("");
  });

  it("does not say what serves it", async () => {
    expect((await get("/")).headers["x-powered-by"]).toBeUndefined();
  });
});
