import { stringify } from "csv-stringify/sync";
import { isoDate } from "../../waitlist/policies";
import { site } from "../../config/site";
import { leaverDigest } from "../../waitlist/leavers";
import { writePrivateFile } from "../../waitlist/private-file";
import { readAddressFile } from "../address-file";
import { command } from "../command";
import { UsageError } from "../errors";
import { fingerprintKeyIn } from "../open-store";
import { privateFileTarget } from "../out-file";

/*
 * Those who left after the launch list went to a mailing tool are still its members there. A leave keeps a keyed
 * digest of the address for a while (waitlist/leavers.ts): this matches the tool's own export of its members against
 * them and names who to remove there, from the tool's own file. Nothing here is written to the store.
 */

export const leavers = command({
  name: "leavers",
  usage: [
    "leavers --from MEMBERS.csv [--since YYYY-MM-DD] [--out FILE]",
    "which members of your mailing tool's export left the waitlist (since the",
    "day you gave it the list): remove them there; with --out, as a CSV the",
    `tool can import. A leave is matched for ${site.waitlist.leaverDigestRetentionDays} days, then forgotten`,
  ],
  check: ({ from, since, out }) => {
    const day = since === undefined ? "1970-01-01" : isoDate(since);
    if (day === null) throw new UsageError(`--since must be a date such as 2026-11-26 (got "${since}").`);
    return { ...readAddressFile(from, "leavers --from MEMBERS.csv"), since: day, out: out && privateFileTarget(out) };
  },
  run: async ({ input: { file, named, unread, since, out }, env, opened }) => {
    const fingerprints = await fingerprintKeyIn(opened, env);
    const left = new Set(
      (await opened.store.leaverDigests(new Date(`${since}T00:00:00Z`))).map(({ digest }) => digest),
    );
    const gone = named.filter(({ readings }) => readings.some(({ key }) => left.has(leaverDigest(fingerprints, key))));
    const lines = [
      `${gone.length} of the ${named.length} members in ${file} left the waitlist${since === "1970-01-01" ? "" : ` since ${since}`}${gone.length > 0 ? ": remove them from your mailing tool." : "."}`,
    ];
    if (out) {
      // As the tool wrote each address, a formula-like one escaped as the export escapes it (reads.ts).
      const rows = gone.map(({ value }) => [value]);
      writePrivateFile(
        out,
        `\uFEFF${stringify(rows, { header: true, columns: ["Email Address"], escape_formulas: true })}`,
      );
      lines.push(`Wrote them to ${out}, in one column named Email Address.`);
    } else {
      for (const { line, value } of gone) lines.push(`  line ${line}: ${value}`);
    }
    for (const { line, value, reason } of unread)
      lines.push(`  line ${line}: ${JSON.stringify(value)} not read: ${reason}`);
    return lines.join("\n");
  },
});
