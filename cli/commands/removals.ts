import { checkListedEmail } from "../../waitlist/email-address";
import { parseAge, pruneUnconfirmed } from "../../waitlist/prune";
import { leaverDigest } from "../../waitlist/leavers";
import { readAddressFile } from "../address-file";
import { fingerprintKeyIn } from "../open-store";
import { command } from "../command";
import { NotRemovedError, UsageError } from "../errors";
import type { DepartureKind } from "../../waitlist/signup-life/types";

/*
 * Taking people off the list on their behalf: an e-mailed request, a mailing
 * tool's unsubscribes, and the retention's prune. Each removes as a leave
 * link does, outbox copies included (open-store.ts).
 */

export const remove = command({
  name: "remove",
  usage: ["remove <address>", "take an address off the list (a request by e-mail), as its leave link does"],
  takesAddress: true,
  check: (_options, _env, address) => {
    const checked = checkListedEmail(address);
    if (!checked.ok) throw new UsageError(`"${address}" is not a valid address: ${checked.reason}`);
    return checked;
  },
  run: async ({ input: { key, email }, env, opened }) => {
    const { store, forget } = opened;
    const removed = await store.remove(
      key,
      "operator",
      new Date(),
      leaverDigest(await fingerprintKeyIn(opened, env), key),
    );
    if (removed) forget(removed.email);
    return removed
      ? `Removed ${removed.email} (on the list since ${removed.createdAt}); any confirmation still owed to it is cancelled.`
      : `${email} is not on the waitlist; nothing removed.`;
  },
});

/**
 * What a mailing tool's file says of those it names, as each departure is counted: the person unsubscribed (their own
 * leave, by the tool's link), their address bounced for good, or they marked the mail as spam. Not "operator": the
 * founder only brings home what the person, or their mail server, did at the tool.
 */
const toolFileKinds = {
  unsubscribed: "link",
  bounced: "undeliverable",
  complained: "complaint",
} as const satisfies Record<string, DepartureKind>;
type ToolFileKind = keyof typeof toolFileKinds;

export const removeUnsubscribed = command({
  name: "remove-unsubscribed",
  usage: [
    "remove-unsubscribed --from FILE [--as unsubscribed|bounced|complained]",
    "take off the list every address of a mailing tool's CSV export of its",
    "unsubscribes, bounces or complaints (a column named Email or Email Address),",
    "each counted as what the file says they did (--as; unsubscribed if left out)",
  ],
  check: ({ from, as = "unsubscribed" }) => {
    if (!Object.hasOwn(toolFileKinds, as)) {
      throw new UsageError(
        `--as says what the file's people did at the mailing tool: unsubscribed, bounced or complained (got "${as}").`,
      );
    }
    return { ...readAddressFile(from, "remove-unsubscribed --from FILE.csv"), how: toolFileKinds[as as ToolFileKind] };
  },
  run: async ({ input: { file, named, unread, how }, env, opened }) => {
    const { store, forget } = opened;
    const fingerprints = await fingerprintKeyIn(opened, env);
    let removed = 0;
    let absent = 0;
    const notRemoved = [...unread];
    for (const { line, value, readings } of named) {
      let meant = readings[0]!;
      if (readings.length > 1) {
        const listed = [];
        for (const reading of readings) if (await store.lookup(reading.key)) listed.push(reading);
        if (listed.length > 1) {
          const [a, b] = listed.map((reading) => reading.email);
          const reason = `it may name ${a} or ${b}, both listed (the export writes both so).`;
          notRemoved.push({ line, value, reason });
          continue;
        }
        meant = listed[0] ?? meant;
      }
      const gone = await store.remove(meant.key, how, new Date(), leaverDigest(fingerprints, meant.key));
      if (gone) forget(gone.email);
      if (gone) removed++;
      else absent++;
    }
    const done = `Removed ${removed} of the ${named.length} addresses in ${file}; ${absent} ${absent === 1 ? "was" : "were"} not on the list.`;
    if (notRemoved.length === 0) return done;
    // Everyone the file names must go: a row left behind is someone mailed again, so the exit code says so.
    notRemoved.sort((a, b) => a.line - b.line);
    const rows = notRemoved.length === 1 ? "1 row was" : `${notRemoved.length} rows were`;
    throw new NotRemovedError(
      [
        done,
        `${rows} not removed: correct ${notRemoved.length === 1 ? "it" : "them"} and run this again, or remove each with npm run waitlist -- remove <address>.`,
        ...notRemoved.map(({ line, value, reason }) => `  line ${line}: ${JSON.stringify(value)}: ${reason}`),
      ].join("\n"),
    );
  },
});

export const prune = command({
  name: "prune",
  usage: [
    "prune --unconfirmed-older-than 30d [--dry-run]",
    "remove every signup asked to confirm that long ago that never did",
    "(npm start does it every hour, Netlify's daily function once a day, at",
    "30 days); --dry-run lists them",
  ],
  check: (options) => {
    const given = options["unconfirmed-older-than"];
    const olderThanMs = parseAge(given);
    if (olderThanMs === undefined) {
      throw new UsageError(
        `Say how old an unconfirmed signup must be to go, in days or hours: --unconfirmed-older-than 30d${given === undefined ? "" : ` (got "${given}")`}.`,
      );
    }
    return olderThanMs;
  },
  run: async ({ input: olderThanMs, options, opened: { store, forget } }) => {
    const dryRun = Boolean(options["dry-run"]);
    const { cutoff, addresses } = await pruneUnconfirmed(store, { olderThanMs, dryRun, forget });
    const list = addresses.map(({ email, optInSince }) => `  ${email} (asked ${optInSince})`);
    const signups = `unconfirmed signup${addresses.length === 1 ? "" : "s"}`;
    if (addresses.length === 0)
      return `No unconfirmed signup was asked to confirm before ${cutoff}: nothing to remove.`;
    if (dryRun) {
      return [`Would remove ${addresses.length} ${signups} asked to confirm before ${cutoff}:`, ...list].join("\n");
    }
    return `Removed ${addresses.length} ${signups} asked to confirm before ${cutoff}.`;
  },
});
