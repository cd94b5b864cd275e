// The founders' commands that mail the list, run as a founder runs them against the Netlify site (--netlify, through
// the API stand-in and its 500 calls a minute), beside the site's own senders on the same pace and provider: a let-in
// wave and the announcement of a policy's change. They run on the founder's machine: no function, no credits; their
// mail is the provider's like any other, and so are its bounces and complaints.
import { run } from "../../cli/run";
import { projectFolders } from "../../config/folders";
import { policyRecords, readPolicySources } from "../../waitlist/policies";
import type { Deployment } from "./deployment";

/** What a founder's command said, and how long it took on the simulated clock. */
export interface FoundersRun {
  command: string;
  at: number;
  minutes: number;
  /** Its output's first lines; a run that stopped with some still owed says so (exit code 1). */
  said: string[];
  stoppedOwing: boolean;
}

/** The day of the Privacy Policy's newest change, which announce-policy-change announces. */
export function newestPolicyChange(): string {
  const policy = policyRecords(readPolicySources(projectFolders.legal)).find((one) => one.slug === "privacy-policy");
  const date = policy?.updates[0]?.date;
  if (!date) throw new Error('The Privacy Policy has no change under "What changed" to announce.');
  return date;
}

/** The commands, as a founder types them after `npm run waitlist --`. */
export const foundersCommands = {
  letIn: (count: number) => ["let-in", "--count", String(count)],
  announce: () => ["announce-policy-change", "--policy", "privacy-policy", "--date", newestPolicyChange()],
};

/** Runs `args` against `bench`'s site as its founders do, with the site's mail settings and a launch's. */
export async function runFounders(bench: Deployment, args: string[]): Promise<FoundersRun> {
  const at = Date.now();
  const env = {
    ...bench.environment,
    ...bench.backend.foundersEnv,
    // What a mail to real people carries: who sends it, and where those let in start.
    CONTROLLER_NAME: "Tandem Labs GmbH",
    CONTROLLER_ADDRESS: "Musterstraße 1, 10115 Berlin, Germany",
    LAUNCH_URL: "https://app.jointandem.app/start",
  };
  let said: string;
  let stoppedOwing = false;
  try {
    said = await run([...args, ...bench.backend.foundersArgs], env);
  } catch (error) {
    said = (error as Error).message;
    stoppedOwing = true;
  }
  return {
    command: args.join(" "),
    at,
    minutes: Math.round((Date.now() - at) / 6_000) / 10,
    said: said.split("\n").slice(0, 4),
    stoppedOwing,
  };
}
