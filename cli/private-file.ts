import { closeSync, fchmodSync, openSync, writeFileSync } from "node:fs";

/**
 * Writes a file only this user may read or write (0600), whatever the umask,
 * a file already there included: the founders' exports hold every address
 * and, for the launch, a working leave link for each.
 */
export function writePrivateFile(file: string, content: string): void {
  const fd = openSync(file, "w", 0o600);
  try {
    // The mode given to open is masked by the umask, and an existing file keeps its own: set it outright.
    fchmodSync(fd, 0o600);
    writeFileSync(fd, content);
  } finally {
    closeSync(fd);
  }
}
