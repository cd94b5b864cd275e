import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { UsageError } from "./errors";

/*
 * The file a founder's command writes (export --out): it holds every address and, for the launch, a working leave
 * link for each, so it is written whole and this user's only (writePrivateFile, waitlist/private-file.ts).
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
