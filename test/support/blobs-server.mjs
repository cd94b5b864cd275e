// @netlify/blobs' own local server in a process of its own (its package is
// ESM that Jest's module system cannot load). Prints one JSON line when it
// listens, then one per operation it answers; answers "sync <n>" on stdin with
// "synced <n>", after every line before it and the folders emptied by then.
//
// In front of it, a proxy does what Netlify's service does with a conditional
// write and the local server does not (netlify-blobs.test.ts holds it to it,
// through @netlify/blobs' own client):
//
// - Every read of a blob (GET, HEAD, a listing) gives its ETag. The local
//   server's GET gives none, so a compare-and-swap based on it sent
//   onlyIfMatch: "", which the client drops: the write went through whatever
//   had happened since.
// - The ETag changes with every write: a new random one per write. The local
//   server's is the file's modification time to the millisecond, the same for
//   two writes within one.
// - A write with If-Match (onlyIfMatch) or If-None-Match: * (onlyIfNew) is
//   checked and made as one step: the requests for one key take turns, reads
//   included, so nothing changes the blob between the check and the write, or
//   between a read and the ETag it is answered with. A condition that fails is
//   answered 412, which the client reports as `modified: false`.
// - With a latency (a third argument, JSON: { medianMs, slowEvery, slowMs,
//   failEvery }, every key optional), it is as slow as Netlify's service, in
//   real time: each request waits medianMs before it is handled, every
//   slowEvery-th slowMs, and every failEvery-th is answered 503 after its
//   wait, unhandled, so the client's retry runs (a line { unavailable } says
//   so). Counted, not drawn: a test's run is the same every time. The Netlify
//   bench slows the stand-in on its simulated clock instead (latency.ts).
// - A delete leaves no folder behind. The local server files pending/<h>/<stamp>
//   in folders, leaves them when their blobs go, and walks every one in each
//   listing: after the Netlify bench's viral day, 11,600 empty folders made a
//   sweep's listing take seconds, where Netlify's service has no folders.
import { createHash, randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import http from "node:http";
import path from "node:path";
import { BlobsServer } from "@netlify/blobs/server";

const [directory, token, latencyJson] = process.argv.slice(2);
const latency = latencyJson ? JSON.parse(latencyJson) : undefined;
const write = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const blobs = new BlobsServer({ directory, token, onRequest: ({ type, url }) => write({ op: type, url }) });
const { port } = await blobs.start();

const turns = new Map();
/** Runs `work` after every earlier request for the same key has been answered. */
function inTurn(key, work) {
  const mine = (turns.get(key) ?? Promise.resolve()).then(work);
  const settled = mine.catch(() => {});
  turns.set(key, settled);
  void settled.then(() => turns.get(key) === settled && turns.delete(key));
  return mine;
}

/**
 * The blob a request names, as the local server files it: /<site>/<store>/<key>,
 * after an API prefix or a region (a deploy's store) if any. Without a key, a
 * listing or a signed URL's request.
 */
function blobOf(url) {
  const api = url.pathname.startsWith("/api/v1/blobs/");
  let parts = url.pathname
    .slice(api ? "/api/v1/blobs".length : 0)
    .split("/")
    .slice(1);
  if (parts[0]?.startsWith("region:")) parts = parts.slice(1);
  const [site = "", store = "", ...key] = parts;
  const storeDir = path.resolve(directory, "entries", site, store);
  return {
    metadataDir: path.resolve(directory, "metadata", site, store),
    api,
    key: key.join("/"),
    storeId: `${site}/${store}`,
    storeDir,
    id: `${site}/${store}/${key.join("/")}`,
    file: path.resolve(storeDir, ...key),
  };
}

/** The ETag given with each blob's last write through this server, and the file that write left. */
const written = new Map();
const signature = (stat) => `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`;

/** A blob's ETag now, or undefined when there is no such blob. */
async function etagOf(id, file) {
  const stat = await fs.stat(file, { bigint: true }).catch(() => undefined);
  if (!stat?.isFile()) return undefined;
  const known = written.get(id);
  if (known?.file === signature(stat)) return known.etag;
  // A file written behind the server's back (the Netlify bench seeds its records so) or before it started.
  return `"${createHash("sha256")
    .update(`${id} ${signature(stat)}`)
    .digest("hex")
    .slice(0, 32)}"`;
}

/** Whether an If-Match or If-None-Match value names `etag`: "*" names any blob that is there. */
const names = (header, etag) =>
  etag !== undefined && header.split(",").some((one) => one.trim() === "*" || one.trim() === etag);

/**
 * Passes the request on to the local server, without the headers named in
 * `drop`, and its answer back, with the ETag `etag` gives for its status
 * instead of the local server's. Resolves when the answer has been sent.
 */
function forward(req, res, { drop = [], etag = async () => undefined } = {}) {
  return new Promise((resolve) => {
    const headers = { ...req.headers };
    for (const name of drop) delete headers[name];
    const upstream = http.request(
      { port, host: "127.0.0.1", method: req.method, path: req.url, headers },
      (answer) =>
        void etag(answer.statusCode ?? 502).then((tag) => {
          const { etag: _theirs, ...rest } = answer.headers;
          res.writeHead(answer.statusCode ?? 502, tag ? { ...rest, etag: tag } : rest);
          answer.pipe(res);
          answer.on("end", resolve);
        }),
    );
    upstream.on("error", () => {
      res.writeHead(502).end();
      resolve();
    });
    req.pipe(upstream);
  });
}

/** Writes and listings under way, which folders must not vanish under. */
let using = 0;
/** The removal of emptied folders under way, which writes and listings wait for. */
let tidying;
/** Folders a delete may have emptied, each with the store's folder, where removal stops. */
const emptied = new Map();

/** Runs a write or a listing when no folder is being removed, and removes the emptied ones after. */
async function sharing(work) {
  // What deletes emptied goes first.
  tidy();
  while (tidying) await tidying;
  using++;
  try {
    return await work();
  } finally {
    using--;
    tidy();
  }
}

/** Removes the folders deletes emptied, and their parents once empty, when no write or listing is under way. */
function tidy() {
  if (using > 0 || tidying || emptied.size === 0) return;
  const folders = [...emptied];
  emptied.clear();
  tidying = (async () => {
    for (let [folder, root] of folders) {
      for (; folder.startsWith(`${root}${path.sep}`); folder = path.dirname(folder)) {
        const removed = await fs.rmdir(folder).then(
          () => true,
          () => false,
        );
        // Not empty, or gone: it stays, and so do its parents.
        if (!removed) break;
      }
    }
  })().finally(() => {
    tidying = undefined;
    tidy();
  });
}

/** A listing, its blobs' ETags ours. Resolves when it has been answered. */
const list = (req, res, blob) =>
  new Promise((resolve) => {
    res.on("close", resolve);
    listing(req, res, blob);
  });

function listing(req, res, blob) {
  const upstream = http.request({ port, host: "127.0.0.1", method: "GET", path: req.url, headers: req.headers });
  upstream.on("response", async (answer) => {
    const chunks = [];
    for await (const chunk of answer) chunks.push(chunk);
    let body = Buffer.concat(chunks);
    if (answer.statusCode === 200) {
      const listing = JSON.parse(body.toString("utf8"));
      for (const entry of listing.blobs ?? []) {
        entry.etag = await etagOf(`${blob.storeId}/${entry.key}`, path.resolve(blob.storeDir, entry.key));
      }
      body = Buffer.from(JSON.stringify(listing));
    }
    const { "content-length": _length, "transfer-encoding": _chunked, etag: _etag, ...rest } = answer.headers;
    res.writeHead(answer.statusCode ?? 502, { ...rest, "content-length": body.length }).end(body);
  });
  upstream.on("error", () => res.writeHead(502).end());
  upstream.end();
}

/** A write, checked against its condition and made in the key's turn. */
async function put(req, res, blob) {
  const ifMatch = req.headers["if-match"];
  const ifNoneMatch = req.headers["if-none-match"];
  const current = await etagOf(blob.id, blob.file);
  if (
    (ifMatch !== undefined && !names(ifMatch, current)) ||
    (ifNoneMatch !== undefined && names(ifNoneMatch, current))
  ) {
    // Asked of the service, and refused: an operation all the same, as the local server would count it.
    const url = new URL(req.url ?? "/", "http://blobs");
    write({ op: "set", url: url.pathname + url.search });
    req.resume();
    res.writeHead(412).end();
    return;
  }
  await forward(req, res, {
    // Checked here, against this server's ETags: the local server would check them against its own.
    drop: ["if-match", "if-none-match"],
    async etag(status) {
      written.delete(blob.id);
      const stat = status === 200 ? await fs.stat(blob.file, { bigint: true }).catch(() => undefined) : undefined;
      if (!stat) return undefined;
      const etag = `"${randomUUID()}"`;
      written.set(blob.id, { etag, file: signature(stat) });
      return etag;
    },
  });
}

let requests = 0;
/** Waits as Netlify's service would take; resolves whether to answer 503 instead. */
async function slowly() {
  if (!latency) return false;
  const { medianMs = 0, slowEvery = 0, slowMs = 0, failEvery = 0 } = latency;
  const n = ++requests;
  const ms = slowEvery > 0 && n % slowEvery === 0 ? slowMs : medianMs;
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  return failEvery > 0 && n % failEvery === 0;
}

const signedUrlAccept = "application/json;type=signed-url";
const proxy = http.createServer((req, res) => {
  void slowly().then((unavailable) => {
    if (!unavailable) return handle(req, res);
    const url = new URL(req.url ?? "/", "http://blobs");
    write({ unavailable: url.pathname + url.search });
    req.resume();
    res.writeHead(503, { "content-type": "text/plain" }).end("Service Unavailable");
  });
});

function handle(req, res) {
  const url = new URL(req.url ?? "/", "http://blobs");
  const blob = blobOf(url);
  const method = req.method ?? "GET";
  // A request for a signed URL (an API read or write) touches no blob: the write comes to the URL it gets.
  if (blob.api && (method === "PUT" || req.headers.accept === signedUrlAccept)) return void forward(req, res);
  if (!blob.key) {
    if (method === "GET") return void sharing(() => list(req, res, blob));
    // Deleting a whole store.
    for (const id of written.keys()) if (id.startsWith(`${blob.storeId}/`)) written.delete(id);
    return void forward(req, res);
  }
  if (method === "PUT") return void sharing(() => inTurn(blob.id, () => put(req, res, blob)));
  if (method === "DELETE") {
    return void inTurn(blob.id, async () => {
      await forward(req, res, { etag: async () => void written.delete(blob.id) });
      emptied.set(path.dirname(blob.file), blob.storeDir);
      emptied.set(path.dirname(path.resolve(blob.metadataDir, blob.key)), blob.metadataDir);
      tidy();
    });
  }
  return void inTurn(blob.id, () =>
    forward(req, res, { etag: async (status) => (status === 200 ? etagOf(blob.id, blob.file) : undefined) }),
  );
}
await new Promise((resolve) => proxy.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${proxy.address().port}`;
// The URLs the server signs for API calls point at itself: make them point at the proxy.
blobs.address = url;
write({ ready: url });

process.stdin.setEncoding("utf8");
let buffered = "";
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf("\n")) >= 0) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    if (line.startsWith("sync ")) {
      // And after the folders emptied so far are gone: a test may read the files.
      tidy();
      void (async () => {
        while (tidying) await tidying;
        write({ synced: line.slice(5) });
      })();
    }
  }
});
process.stdin.on("end", () => {
  proxy.close();
  void blobs.stop().then(() => process.exit(0));
});
