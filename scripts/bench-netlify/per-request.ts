// What one signup, confirmation and leave costs as the list grows, and what the founders' export costs at each size.
import { run } from "../../cli/run";
import { confirmLinks, leaveLinks } from "../../test/support/smtp";
import { type Handler, type Deployment, median, progress } from "./deployment";

/** The list's sizes measured at, times the run's scale. */
const sizes = [0, 10_000, 100_000];
const samples = 20;

export interface Cost {
  n: number;
  apiCalls: number;
  /** Blobs operations, or SQL statements on Netlify Database. */
  ops: number;
  ms: number;
}

type Measured = Awaited<ReturnType<Deployment["measured"]>>;

/** At each size, 20 addresses each signed up, confirmed (the page, then its button) and gone (likewise). */
export async function perRequest(bench: Deployment, { scale = 1 } = {}) {
  const { backend, smtp, invoke, post, opened, pressed, nextIp, measured, signup, confirm, leave, sweep } = bench;
  const perSignup: Cost[] = [];
  const perLeave: Cost[] = [];
  const perConfirm: Cost[] = [];
  const founders: { n: number; apiCalls: number; ms: number }[] = [];
  /** A mail's link as a visitor follows it: the page it opens, then that page's button. */
  const pageThenButton = async (handler: Handler, link: string, path: string) => {
    await invoke(handler, opened(link), nextIp());
    return invoke(handler, pressed(link, path), nextIp());
  };
  for (const n of sizes.map((size) => Math.round(size * scale))) {
    progress(`per request at ${n} listed`);
    await backend.seedTo(n);
    const signups: Measured[] = [];
    const leaves: Measured[] = [];
    const confirms: Measured[] = [];
    for (let k = 0; k < samples; k++) {
      const email = `sample${n}-${k}@example.com`;
      signups.push(await measured(() => invoke(signup, post(email), nextIp())));
      const delivery = smtp.deliveries.find((candidate) => candidate.envelope.to.includes(email));
      const confirmLink = confirmLinks(delivery!.mail).text;
      confirms.push(await measured(() => pageThenButton(confirm, confirmLink, "/waitlist/confirm")));
      const link = leaveLinks(delivery!.mail).text;
      leaves.push(await measured(() => pageThenButton(leave, link, "/waitlist/leave")));
    }
    const cost = (all: typeof signups): Cost => ({
      n,
      apiCalls: Math.max(...all.map((one) => one.apiCalls)),
      ops: median(all.map((one) => one.ops)),
      ms: Math.round(median(all.map((one) => one.ms)) * 10) / 10,
    });
    perSignup.push(cost(signups));
    perLeave.push(cost(leaves));
    perConfirm.push(cost(confirms));
    await sweep();
    // The founders' export at this size: on Blobs through the rate-limited API.
    const exported = await measured(() =>
      run(["export", "--record", "--format", "json", ...backend.foundersArgs], backend.foundersEnv),
    );
    founders.push({ n, apiCalls: exported.apiCalls, ms: Math.round(exported.ms) });
  }
  return { perSignup, perConfirm, perLeave, founders };
}
