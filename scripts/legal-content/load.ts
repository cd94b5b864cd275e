import { readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/*
 * The content check loads config/site.ts, where legal staff edit the consent statement in GitHub's web editor. A
 * slip there (a quotation mark for the closing backtick) stops the file from loading at all; this turns that into a
 * line that names the file, the line and what to look for, in place of a stack trace, so the job's summary still
 * says what to fix.
 */

const projectRoot = path.resolve(__dirname, "../..");

/** An error's message and stack, from this realm or another's (a loader's, a test runner's: not `instanceof Error`). */
function errorText(error: unknown): { message?: string; stack?: string } {
  if (typeof error !== "object" || error === null) return { message: String(error) };
  const { message, stack } = error as { message?: unknown; stack?: unknown };
  return {
    message: typeof message === "string" ? message : undefined,
    stack: typeof stack === "string" ? stack : undefined,
  };
}

const sourceFile = /((?:[A-Za-z]:)?[\\/][^\s:()'"]+\.(?:ts|tsx|mts))\b/;

/**
 * The source file an error is about: the one its message names (a file that cannot be read), else the one its stack
 * stopped in (a file that stops when run); never a dependency's.
 */
function fileOf(error: unknown): string | undefined {
  const { message = "", stack = "" } = errorText(error);
  const top = stack.split("\n").find((line) => /^\s+at /.test(line)) ?? "";
  const file = sourceFile.exec(message)?.[1] ?? sourceFile.exec(top)?.[1];
  return file === undefined || file.includes(`${path.sep}node_modules${path.sep}`) ? undefined : file;
}

/** The line of `file` a runtime error's stack names, where it names one. */
function lineOf(error: unknown, file: string): number | undefined {
  const { stack = "" } = errorText(error);
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = new RegExp(`${escaped}:(\\d+)`).exec(stack);
  return match ? Number(match[1]) : undefined;
}

/**
 * What is wrong with the TypeScript of `file` as written, in legal staff's words, or undefined when it reads. A
 * statement between backticks that does not end with one is named by its own line: TypeScript only notices it
 * where the next backtick is, far below.
 */
export function syntaxProblem(file: string): string | undefined {
  const source = readFileSync(file, "utf8");
  const { diagnostics = [] } = ts.transpileModule(source, { reportDiagnostics: true, fileName: file });
  const first = diagnostics.find((diagnostic) => diagnostic.start !== undefined);
  if (!first) return undefined;
  const shown = path.relative(projectRoot, file);
  const lines = source.split("\n");
  const open = lines.findIndex(
    (line) => /^\s*statement:\s*`/.test(line) && !/^\s*statement:\s*`[^`]*`,\s*$/.test(line),
  );
  if (open >= 0) {
    return `${shown}: line ${open + 1} cannot be read: the consent statement (waitlist.consent.statement) must start and end with a backtick (\`), with a comma after the last one, and hold no other backtick. Look at the end of that line: a quotation mark may stand where the closing backtick should be. Nothing else was checked until it reads.`;
  }
  const at = first.file!.getLineAndCharacterOfPosition(first.start!).line + 1;
  const reason = ts.flattenDiagnosticMessageText(first.messageText, " ").replace(/\.$/, "");
  return `${shown}: line ${at} cannot be read (${reason}). Look at that line and the lines just above it for a quotation mark, backtick (\`), brace or comma missing or extra; in the consent statement, every \${…} stays as it is. Nothing else was checked until it reads.`;
}

/**
 * Loads what the content check runs (`load`), or says in legal staff's words why a file cannot be loaded: one that
 * cannot be read (syntaxProblem), or one of config/ that stops when run, by its line. An error of any other kind is
 * the check's own, and is thrown.
 */
export async function loadOrExplain<T>(load: () => Promise<T>): Promise<{ loaded: T } | { problem: string }> {
  try {
    return { loaded: await load() };
  } catch (error) {
    const file = fileOf(error);
    const syntax = file === undefined ? undefined : syntaxProblem(file);
    if (syntax) return { problem: syntax };
    // A file that reads but stops when run: explained when it is one legal staff edit (config/), else the check's own.
    if (file === undefined || path.basename(path.dirname(file)) !== "config") throw error;
    const line = lineOf(error, file);
    const at = line === undefined ? "" : `line ${line}: `;
    const reason = (errorText(error).message ?? "").split("\n")[0];
    return {
      problem: `${path.relative(projectRoot, file)}: ${at}the file cannot be loaded (${reason}). Look at that line: a name inside \${…} must be one the file defines, such as \${minimumAge}. Nothing else was checked until it loads.`,
    };
  }
}
