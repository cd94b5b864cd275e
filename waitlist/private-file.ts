import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  fchmodSync,
  fsyncSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
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

/**
 * Writes `content` to `file` for this user alone (0600, whatever the umask),
 * whole or not at all: into a new file beside it, flushed to disk, that then
 * takes the old one's place in one rename. A crash leaves the old file as it
 * was (and at worst a hidden `.FILE.….tmp` beside it), never half an export.
 */
export function writePrivateFile(file: string, content: string | Uint8Array): void {
  const folder = path.dirname(file);
  const temporary = path.join(folder, `.${path.basename(file)}.${randomBytes(6).toString("hex")}.tmp`);
  // "wx": a new file of our own, never one someone put there (or a link to one).
  const fd = openSync(temporary, "wx", 0o600);
  try {
    try {
      // The mode given to open is masked by the umask: set it outright.
      fchmodSync(fd, 0o600);
      writeFileSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  syncFolder(folder);
}

/** Makes a rename in `folder` durable; a no-op where folders cannot be opened (Windows). */
function syncFolder(folder: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(folder, "r");
    fsyncSync(fd);
  } catch {
    // The rename is atomic all the same; only its durability across a power cut waits for the system.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
