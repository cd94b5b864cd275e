import { waitlistConfig } from "../../config/env";
import { checkListedEmail } from "../../waitlist/email-address";
import { redactAddresses } from "../../waitlist/mail/redact";
import { invitesByCode, isRestricted } from "../../waitlist/signup-life/rules";
import { leaveUrl } from "../../waitlist/tokens";
import { command } from "../command";
import { NotListedError, UsageError } from "../errors";
import { linkSecretOf } from "../open-store";
import { privateFileTarget } from "../out-file";
import { formats } from "../export-rows";
import { launchToolWavesDue, rankingInvites } from "../../waitlist/waves";
import { deleteFromTool, overdueAtTool } from "../tool-waves";
import { launchList } from "../../waitlist/launch/launch-list";
import { namedLaunchTool, waveOption, suppressedOf, writeLaunchFile } from "../launch-file";
import { plural } from "../sender";
import { heldFingerprints } from "../held";
import { confirmedIsGone, notListed, writeRecord, type ExportRow } from "../record-export";

/* npm run waitlist -- export: a copy of the record, or the launch tool's file; each reads every signup once. */

export const exportCommand = command({
  name: "export",
  usage: [
    "export --record|--launch --format csv|json [--out FILE] [--wave N] [--email ADDRESS]",
    "--record: a copy of every signup as the store keeps it (where it came",
    "from, its consent, its invites), to standard output or FILE, to answer",
    "a question or a request, then delete: the store is the record, and no",
    "leave, remove or 30-day pass reaches a copy; never a file to keep or to",
    "import. --email ADDRESS: that one person's row, read by its key (an",
    "access or portability request). --order invites: those who brought the",
    "most first; --leave-urls: each one's leave link too. --launch, with",
    "--out: the file for the launch mail tool, each address let in (let-in)",
    "with its own leave link and wave, nothing else; refused until the",
    "Privacy Policy at SITE_URL names the tool.",
    "--wave N: one wave's people only; --not-let-in (--record): those in no",
    "wave yet",
  ],
  check: (options) => {
    const { format, out, order } = options;
    if (options.confirmed) throw new UsageError(confirmedIsGone);
    if (options.record === options.launch) {
      throw new UsageError(
        "Say which export: --record, a copy of every signup as the store keeps it (to answer a question or someone's request for what you hold, then delete), or --launch --out FILE, the file to import into the launch mail tool.",
      );
    }
    if (!format) throw new UsageError("Say which format: --format csv or --format json.");
    const known = formats.find((name) => name === format);
    if (!known) throw new UsageError(`Unknown format "${format}": use --format csv or --format json.`);
    const wave = waveOption(options.wave);
    if (wave !== undefined && options["not-let-in"]) {
      throw new UsageError("Choose one: --wave N, the people of one wave, or --not-let-in, those in none yet.");
    }
    // One person's row (an access or portability request), found as remove finds them: by the address's key.
    let person: { email: string; key: string } | undefined;
    if (options.email !== undefined) {
      const checked = checkListedEmail(options.email);
      if (!checked.ok) throw new UsageError(`"${options.email}" is not a valid address: ${checked.reason}`);
      person = checked;
    }
    if (person && options.launch) {
      throw new UsageError(
        "--email goes with --record: one person's row, to answer their request. The launch mail tool gets a wave's file (--wave N).",
      );
    }
    if (person && (wave !== undefined || options["not-let-in"] || order !== undefined)) {
      throw new UsageError(
        "export --record --email ADDRESS writes that one person's row: leave out --wave, --not-let-in and --order.",
      );
    }
    if (options.launch) {
      if (order !== undefined || options["leave-urls"]) {
        throw new UsageError(
          "export --launch takes only --format, --out and --wave: every address let in (or one wave's) with its own leave link and wave, in the order of signup.",
        );
      }
      if (out === undefined) {
        throw new UsageError(
          "Say where the launch list goes: --out FILE. It holds a working leave link for each person: import it into the launch mail tool, then delete it.",
        );
      }
      if (options["not-let-in"]) {
        throw new UsageError(
          "export --launch takes --wave N for one wave's people, or neither for everyone let in; those not let in yet are let in with let-in.",
        );
      }
      return { launch: true, format: known, target: privateFileTarget(out), byInvites: false, wave, person: undefined };
    }
    if (order !== undefined && order !== "invites") {
      throw new UsageError(`Unknown order "${order}": use --order invites, or leave it out for the order of signup.`);
    }
    return {
      launch: false,
      format: known,
      target: out === undefined ? undefined : privateFileTarget(out),
      byInvites: order === "invites",
      wave,
      person,
    };
  },
  run: async ({ input: { launch, format, target, byInvites, wave, person }, options, env, opened }) => {
    const { siteUrl } = waitlistConfig(env);
    // Before anything is read or written: the list goes to no tool the Privacy Policy the site serves does not name.
    const tool = launch ? await namedLaunchTool(siteUrl) : undefined;
    // The record is read, not mailed: its leave links (each a key to take that person off) only when asked for.
    const secretIfAsked = async () =>
      options["leave-urls"] ? { secret: await linkSecretOf(opened, env), siteUrl } : undefined;
    if (person) {
      // By its key, as a leave finds it: a record read and its invites counted, never the whole list.
      const found = await opened.store.signup(person.key);
      // The fingerprints that outlive an entry are the person's too: an answer of "nothing held" must not hide them.
      const held = await heldFingerprints(opened, env, person.key, new Date(), { listed: found !== undefined });
      if (!found) throw new NotListedError(notListed(person.email, held));
      const row: ExportRow = {
        ...found,
        confirmationError: found.confirmationError && redactAddresses(found.confirmationError, found.email),
        confirmedInvites: (await opened.store.lookup(person.key))?.confirmedInvites ?? 0,
      };
      const what = `the row of ${found.email}`;
      const written = await writeRecord([row], { format, target, out: options.out, what }, secretIfAsked);
      if (held.length === 0) return written;
      const also = ["Also kept of this person, outside the row:", ...held.map((line) => `  ${line}`)].join("\n");
      // The row itself on standard output stays a file to read; what else is kept goes beside it.
      if (target === undefined) console.error(also);
      return target === undefined ? written : `${written}\n${also}`;
    }
    const everyone = await opened.store.all();
    if (tool !== undefined && target) {
      // Every mail must carry the person's own way off this list, and the launch mail is no exception.
      const secret = await linkSecretOf(opened, env);
      // Nor anyone whose address or mailbox is held after a bounce or a spam complaint since: looked up by key.
      const held = await suppressedOf(opened.store, secret, everyone, wave);
      const rows = launchList(everyone, (row) => leaveUrl(row.email, row.createdAt, secret, siteUrl), { wave, held });
      const leftOut = rows.left;
      if (rows.length === 0) {
        const mailed = wave !== undefined && everyone.some((row) => row.wave === wave);
        throw new UsageError(
          mailed
            ? `Wave ${wave} was e-mailed by let-in, not handed to the launch tool: its file would have the tool mail them a second time; nothing was written.`
            : `${wave === undefined ? "Nobody is let in for the launch tool yet" : `Nobody listed is in wave ${wave}`}: the tool gets those let in for it, each with their wave. let-in --count N --launch-tool --format csv --out FILE lets the next in and writes their file; nothing was written.`,
        );
      }
      const warnings = writeLaunchFile(target, rows, format);
      const whose = wave === undefined ? "let in so far" : `of wave ${wave}`;
      // The file's waves that the tool should have deleted by now, if it had them before: said, not refused.
      const due = launchToolWavesDue(everyone, new Date()).filter((one) => wave === undefined || one.wave === wave);
      return [
        `Wrote ${options.out}: ${rows.length} ${rows.length === 1 ? "address" : "addresses"} ${whose}, each with its own leave link and wave, for ${tool}. Delete it once the tool has it.`,
        deleteFromTool(wave === undefined ? "each wave" : `wave ${wave}`, tool),
        ...overdueAtTool(due, tool),
        ...(leftOut > 0
          ? [
              `Left out ${leftOut === 1 ? "1 person" : `${leftOut} people`} the mail may no longer reach (restricted, bounced for good, or held after a bounce or a spam complaint): the tool must not mail them.`,
            ]
          : []),
        ...warnings,
      ].join("\n");
    }
    // Everyone, one wave's people (--wave N), or those in none yet (--not-let-in); the invites count over everyone.
    const chosen = everyone.filter((row) =>
      wave !== undefined ? row.wave === wave : options["not-let-in"] ? row.wave === null : true,
    );
    // A restricted entry is used for nothing else (Art. 18): in no copy of the list; its own row goes by --email.
    const all = chosen.filter((row) => !isRestricted(row));
    const held = chosen.length - all.length;
    const leftOut = `${plural(held, "restricted entry", "restricted entries")} left out: export --record --email ADDRESS writes one, to answer that person.`;
    const counts = invitesByCode(everyone);
    const rows: ExportRow[] = all.map((row) => ({
      ...row,
      // The mail server's words without the address they may quote, as they are kept since issue 52.
      confirmationError: row.confirmationError && redactAddresses(row.confirmationError, row.email),
      confirmedInvites: (row.inviteCode && counts.get(row.inviteCode)) || 0,
    }));
    // Those who brought the most confirmed creators first, then by signup (a stable sort).
    if (byInvites) {
      // Ranked as a wave by invites ranks them: one who objected to it counts none here either.
      const ranked = rankingInvites(everyone);
      rows.sort((a, b) => ranked(b) - ranked(a));
    }
    const written = await writeRecord(
      rows,
      { format, target, out: options.out, what: plural(rows.length, "signup") },
      secretIfAsked,
    );
    if (held === 0) return written;
    if (target === undefined) console.error(leftOut);
    return target === undefined ? written : `${written}\n${leftOut}`;
  },
});
