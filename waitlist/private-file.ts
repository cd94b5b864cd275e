import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";

/*
 * Files that hold addresses (the SQLite store, the outbox's messages, an export) are readable by their user only,
 * whatever the umask: folders made here are 0700, files 0600, and ones an earlier version made wider are narrowed.
 */

/** Makes `folder` (and its parents) if missing, and makes it 0700. */
export function privateFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  chmodSync(folder, 0o700);
}

/**
 * Creates each file that is missing as an empty 0600 file (the first one only: SQLite makes its WAL and SHM files
 * with the store's own mode), in a 0700 folder when the folder is new, and makes 0600 those already there. Another
 * user's file (a founder's command on the server's store) is left as it is.
 */
export function privateFiles(file: string, ...companions: string[]): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, "a", 0o600));
  for (const one of [file, ...companions]) {
    try {
      chmodSync(one, 0o600);
    } catch (error) {
      if (!["ENOENT", "EPERM"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    }
  }
}
