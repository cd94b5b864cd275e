import { randomBytes } from "node:crypto";
import {
  closeSync,
  fchmodSync,
  fsyncSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { UsageError } from "./errors";

/*
 * The files the founders' commands write (export --out): they hold every
 * address and, for the launch, a working leave link for each.
 */

/**
 * Where `--out FILE` is written: the file itself, or the file a link names.
 * Throws a UsageError for a folder, a device or a folder that is not there,
 * before anything is read or written.
 */
export function privateFileTarget(file: string, option = "--out"): string {
  if (file === "")
    throw new UsageError(`Say which file after ${option}, or leave ${option} out to print to the screen.`);
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    const folder = path.dirname(path.resolve(file));
    if (!statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
      throw new UsageError(`${option} ${file}: there is no folder ${folder}.`);
    }
    return path.resolve(file);
  }
  if (!statSync(real).isFile()) {
    throw new UsageError(
      `${option} ${file} is not a file; name a file, or leave ${option} out to print to the screen.`,
    );
  }
  return real;
}

/**
 * Writes `content` to `file` for this user alone (0600, whatever the umask),
 * whole or not at all: into a new file beside it, flushed to disk, that then
 * takes the old one's place in one rename. A crash leaves the old file as it
 * was (and at worst a hidden `.FILE.….tmp` beside it), never half an export.
 */
export function writePrivateFile(file: string, content: string): void {
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
