import type { Env } from "../config/env";
import type { OpenedStore } from "./open-store";

/** The options every command line may carry (parseArgs), as given. */
export interface Options {
  format?: string;
  out?: string;
  days?: string;
  json?: boolean;
  netlify?: boolean;
  confirmed?: boolean;
  record?: boolean;
  launch?: boolean;
  "leave-urls"?: boolean;
  from?: string;
  /** What the people of a mailing tool's file did there (remove-unsubscribed). */
  as?: string;
  "unconfirmed-older-than"?: string;
  "dry-run"?: boolean;
  again?: boolean;
  policy?: string;
  date?: string;
  since?: string;
  order?: string;
  wave?: string;
  "not-let-in"?: boolean;
  count?: string;
  "per-second"?: string;
  "launch-tool"?: boolean;
  to?: string;
  lift?: boolean;
  email?: string;
}

/** What a command is given: its arguments, checked; the environment, read once; the store, opened. */
export interface CommandContext<Input> {
  input: Input;
  options: Options;
  env: Env;
  opened: OpenedStore;
}

/** One row of the CLI's command table. */
export interface Command<Input = unknown> {
  name: string;
  /** The usage lines: the command line, then what it does (run.ts aligns them). */
  usage: [synopsis: string, ...description: string[]];
  /** Whether it takes one address after its name (remove); no other command takes any. */
  takesAddress?: true;
  /**
   * Checks the command line before the store is opened, and turns it into
   * what run() needs; throws a UsageError that says what to type instead.
   */
  check?: (options: Options, env: () => Env, address: string | undefined) => Input;
  run: (context: CommandContext<Input>) => Promise<string>;
}

/** A table row, typed by what its check gives its run. */
export const command = <Input>(row: Command<Input>): Command => row as Command;
