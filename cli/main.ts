import { ConfigError } from "../config/env";
import { StoreError } from "../waitlist/stores/store";
import { NotListedError, NotRemovedError, PendingError, UsageError } from "./errors";
import { NetlifySetupError } from "./netlify-access";
import { run, usage } from "./run";

/*
 * npm run waitlist: the founders' commands (run.ts has the table). Prints
 * what a command returns; exit code 1 for what may pass (mail still owed,
 * Netlify's API) and for an address asked about that is not on the list, 2
 * for a command line, a setting or an input file's rows to correct.
 */
run(process.argv.slice(2)).then(
  (output) => console.log(output),
  (error: unknown) => {
    if (error instanceof PendingError || error instanceof NotListedError) {
      console.error(error.message);
      process.exit(1);
    }
    if (
      error instanceof UsageError ||
      error instanceof NotRemovedError ||
      error instanceof StoreError ||
      error instanceof ConfigError ||
      error instanceof NetlifySetupError
    ) {
      console.error(error.message);
      process.exit(2);
    }
    const status = (error as { status?: unknown }).status;
    if (typeof status === "number") {
      // @netlify/api's error for an answer that is not 2xx, past the check openNetlifyAccess makes.
      console.error(`Netlify's API answered ${status} (${(error as Error).message}); try again in a minute.`);
      process.exit(1);
    }
    if ((error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      console.error(`${(error as Error).message}\n\n${usage}`);
      process.exit(2);
    }
    throw error;
  },
);
