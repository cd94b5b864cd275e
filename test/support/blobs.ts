import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { getStore, type Store } from "@netlify/blobs";
import { blobsStoreName } from "../../waitlist/stores/blobs-store";

/** One operation the local Blobs server answered: get, getMetadata, list, set or delete. */
export interface BlobsOperation {
  type: string;
  url: string;
}

export interface LocalBlobs {
  siteID: string;
  token: string;
  /** The server's address: a function's edgeURL, or the CLI's apiURL. */
  url: string;
  /** Every operation answered so far, once `settled()` has resolved; clear it with `operations.length = 0`. */
  operations: BlobsOperation[];
  /** The requests answered 503 by the latency option so far (their paths), once `settled()` has resolved. */
  unavailable: string[];
  /** Resolves when every operation answered so far is in `operations`. */
  settled(): Promise<void>;
  /** A client of the waitlist's store, as a function gets it on Netlify (edge access, strong reads). */
  store(): Store;
  /** NETLIFY_BLOBS_CONTEXT, as Netlify sets it for a function. */
  context(): string;
  stop(): Promise<void>;
}

export const localBlobsSite = { siteID: "5d0f6a48-1b7e-4c1e-9a57-0c7bb2f7e0aa", token: "local-blobs-token" } as const;

/**
 * Netlify's speed, in real time, for a test: every request to the server waits `medianMs` (every `slowEvery`-th
 * `slowMs`), and every `failEvery`-th is answered 503, for the client to try again. Off by default.
 */
export interface BlobsLatency {
  medianMs?: number;
  slowEvery?: number;
  slowMs?: number;
  failEvery?: number;
}

/**
 * @netlify/blobs' own local server (BlobsServer), standing in for Netlify
 * Blobs: real HTTP on 127.0.0.1 over files in a temporary folder, with a
 * token, in its own process (blobs-server.mjs); as slow as Netlify with
 * `latency`.
 */
export async function startLocalBlobs({
  directory = mkdtempSync(path.join(os.tmpdir(), "blobs-")),
  latency,
}: { directory?: string; latency?: BlobsLatency } = {}): Promise<LocalBlobs & { directory: string }> {
  const { siteID, token } = localBlobsSite;
  const args = [
    path.join(__dirname, "blobs-server.mjs"),
    directory,
    token,
    ...(latency ? [JSON.stringify(latency)] : []),
  ];
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "inherit"] });
  const operations: BlobsOperation[] = [];
  const unavailable: string[] = [];
  const waiting = new Map<string, () => void>();
  let syncs = 0;
  const url = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`The local Blobs server exited with ${code}.`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const message = JSON.parse(line) as {
        ready?: string;
        op?: string;
        url?: string;
        synced?: string;
        unavailable?: string;
      };
      if (message.ready) resolve(message.ready);
      else if (message.unavailable !== undefined) unavailable.push(message.unavailable);
      else if (message.op) operations.push({ type: message.op, url: message.url ?? "" });
      else if (message.synced) waiting.get(message.synced)?.();
    });
  });
  return {
    directory,
    siteID,
    token,
    url,
    operations,
    unavailable,
    settled: () =>
      new Promise<void>((resolve) => {
        const id = String(++syncs);
        waiting.set(id, resolve);
        child.stdin.write(`sync ${id}\n`);
      }),
    store: () =>
      getStore({ name: blobsStoreName, siteID, token, edgeURL: url, uncachedEdgeURL: url, consistency: "strong" }),
    context: () =>
      Buffer.from(JSON.stringify({ edgeURL: url, uncachedEdgeURL: url, siteID, token })).toString("base64"),
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin.end();
      await exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
