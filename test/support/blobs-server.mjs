// @netlify/blobs' own local server in a process of its own (its package is
// ESM that Jest's module system cannot load). Prints one JSON line when it
// listens, then one per operation it answers; answers "sync <n>" on stdin with
// "synced <n>", after every line before it.
//
// In front of it, a proxy makes writes to one key take turns, as Netlify
// applies a conditional write (onlyIfNew, onlyIfMatch) atomically: the local
// server checks, then writes, so two writers could both pass the check. It
// also lets a millisecond pass between two writes to one key, since the
// local server's ETag is the file's modification time to the millisecond.
import http from "node:http";
import { BlobsServer } from "@netlify/blobs/server";

const [directory, token] = process.argv.slice(2);
const write = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const blobs = new BlobsServer({ directory, token, onRequest: ({ type, url }) => write({ op: type, url }) });
const { port } = await blobs.start();

const turns = new Map();
/** Runs `work` after every earlier write to the same key has finished. */
function inTurn(key, work) {
  const before = turns.get(key) ?? Promise.resolve();
  const mine = before.then(work).then(async (result) => {
    const done = Date.now();
    while (Date.now() === done) await new Promise((resolve) => setImmediate(resolve));
    return result;
  });
  const settled = mine.catch(() => {});
  turns.set(key, settled);
  void settled.then(() => turns.get(key) === settled && turns.delete(key));
  return mine;
}

const proxy = http.createServer((req, res) => {
  const forward = () =>
    new Promise((resolve) => {
      const upstream = http.request(
        { port, host: "127.0.0.1", method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on("end", resolve);
        },
      );
      upstream.on("error", () => {
        res.writeHead(502).end();
        resolve();
      });
      req.pipe(upstream);
    });
  const key = new URL(req.url ?? "/", "http://blobs").pathname;
  if (req.method === "PUT" || req.method === "DELETE") void inTurn(key, forward);
  else void forward();
});
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
    if (line.startsWith("sync ")) write({ synced: line.slice(5) });
  }
});
process.stdin.on("end", () => {
  proxy.close();
  void blobs.stop().then(() => process.exit(0));
});
