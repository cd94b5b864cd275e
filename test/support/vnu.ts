import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

/*
 * The Nu HTML Checker (the W3C's validator, vnu-jar, on Debian's Java): the built pages, the pages the server
 * writes, and the founders' report are checked by it. One JVM per call: it takes seconds to start.
 */

const run = promisify(execFile);
/** The checker itself, from the npm package; it runs on the machine's Java (Debian's default-jre-headless). */
const vnuJar = require.resolve("vnu-jar/build/dist/vnu.jar");

interface VnuMessage {
  type: string;
  url: string;
  lastLine?: number;
  message: string;
  extract?: string;
}

/** The checker's errors for these files, one line each: where, and what. */
export async function vnuErrors(files: string[]): Promise<string[]> {
  let stderr: string;
  try {
    ({ stderr } = await run("java", ["-jar", vnuJar, "--format", "json", "--errors-only", ...files], {
      maxBuffer: 64 * 1024 * 1024,
    }));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error("The Nu HTML Checker needs Java 11 or newer on PATH: apt-get install default-jre-headless.");
    }
    // It exits 1 when it found errors: they are in its output all the same.
    stderr = (error as { stderr?: string }).stderr ?? "";
    if (!stderr.startsWith("{")) throw error;
  }
  const { messages } = JSON.parse(stderr) as { messages: VnuMessage[] };
  return messages
    .filter((message) => message.type === "error" || message.type === "non-document-error")
    .map(
      (message) =>
        `${path.basename(path.dirname(message.url))}/${path.basename(message.url)}:${message.lastLine ?? "?"}: ${message.message}`,
    );
}
