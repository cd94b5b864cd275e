// @netlify/blobs' own local server in a process of its own (its package is
// ESM that Jest's module system cannot load). Prints one JSON line when it
// listens, then one per operation it answers; answers "sync <n>" on stdin with
// "synced <n>", after every line before it.
import { BlobsServer } from "@netlify/blobs/server";

const [directory, token] = process.argv.slice(2);
const write = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);
const server = new BlobsServer({ directory, token, onRequest: ({ type, url }) => write({ op: type, url }) });
const { port } = await server.start();
write({ ready: `http://127.0.0.1:${port}` });
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
process.stdin.on("end", () => void server.stop().then(() => process.exit(0)));
