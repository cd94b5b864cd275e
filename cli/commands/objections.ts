import { checkListedEmail } from "../../waitlist/email-address";
import { objectionKinds, type ObjectionKind } from "../../waitlist/signup-life/types";
import { command } from "../command";
import { UsageError } from "../errors";

/*
 * A person's requests under the Privacy Policy, carried out by a founder as they arrive by e-mail: an objection to a
 * use of their entry that rests on the founders' legitimate interest (Art. 21 GDPR, "Your Right to Object"), and a
 * restriction (Art. 18: kept, used for nothing else until the question is settled). What each does is said once, in
 * signup-life's transitions (object, restrict) and read by every rule that mails, lets in, removes or counts.
 */

/** The address, checked, as every command that takes one checks it. */
function addressOf(address: string | undefined) {
  const checked = checkListedEmail(address ?? "");
  if (!checked.ok) throw new UsageError(`"${address}" is not a valid address: ${checked.reason}`);
  return checked;
}

/** What each objection did, in the words the founder passes on to the person. */
const done: Record<ObjectionKind, string> = {
  attribution: "their page and campaign tag are deleted from their entry; they count in no source or campaign figure.",
  invite:
    "the invite code of the link they came by is deleted from their entry; they count for no inviter, and whoever invited them is not told.",
  ranking:
    "they are not ranked by the creators they invited: a wave by invites counts none for them (a wave by signup is as before), and the founders' figures name them among no top inviters.",
  records:
    "the record of their consent (when they signed up and confirmed, and the policy and wording then in force) is kept, because it is our proof that we may e-mail them, which the Privacy Policy names as the compelling ground (Art. 21(1) GDPR: to establish or defend a legal claim); it is used for nothing else, and goes when their entry goes. Tell them so, and that they can end it at once by leaving the waitlist. The site keeps no security record of a person (its logs name nobody, and go within 30 days).",
};

async function noteObjection(
  store: { objectTo(emailKey: string, to: ObjectionKind, at: Date): Promise<string | undefined> },
  { key, email }: { key: string; email: string },
  to: ObjectionKind,
) {
  const at = new Date();
  const noted = await store.objectTo(key, to, at);
  if (noted === undefined) return `${email} is not on the waitlist; nothing noted.`;
  const since = noted === at.toISOString() ? "" : ` (noted before, on ${noted})`;
  return `Noted${since}: ${email} objected to ${to === "records" ? "the records we keep" : `the ${to === "ranking" ? "ranking by invites" : to}`}. From now on ${done[to]}`;
}

export const object = command({
  name: "object",
  usage: [
    "object <address> --to attribution|invite|ranking|records",
    "carry out a person's objection (a request by e-mail): attribution",
    "deletes their page and campaign tag, invite the code they came by,",
    "ranking counts their invites as none in a wave by invites, records",
    "notes it and says what to answer (their consent record is kept)",
  ],
  takesAddress: true,
  check: (options, _env, address) => {
    const to = options.to as ObjectionKind | undefined;
    if (!to || !objectionKinds.includes(to)) {
      throw new UsageError(
        `Say what the person objects to: --to ${objectionKinds.join(", --to ")}${options.to ? ` (not "${options.to}")` : ""}.`,
      );
    }
    return { ...addressOf(address), to };
  },
  run: ({ input: { to, ...address }, opened: { store } }) => noteObjection(store, address, to),
});

/** The shorter spelling of `object <address> --to ranking`, as it was before the other objections. */
export const objectToRanking = command({
  name: "object-to-ranking",
  usage: ["object-to-ranking <address>", "the same as object <address> --to ranking"],
  takesAddress: true,
  check: (_options, _env, address) => addressOf(address),
  run: ({ input, opened: { store } }) => noteObjection(store, input, "ranking"),
});

export const restrict = command({
  name: "restrict",
  usage: [
    "restrict <address> [--lift]",
    "restrict a person's entry (a request by e-mail, while a question is",
    "settled): kept, and used for nothing else: no e-mail, no wave, no",
    "retention pass, no count; --lift ends it. A leave still deletes it",
  ],
  takesAddress: true,
  check: (_options, _env, address) => addressOf(address),
  run: async ({ input: { key, email }, options, opened: { store } }) => {
    const lift = Boolean(options.lift);
    const now = await store.restrict(key, lift ? null : new Date());
    if (now === undefined) return `${email} is not on the waitlist; nothing changed.`;
    if (lift) {
      return `${email}'s entry is used again as any other: its e-mail, its wave, the retention and the figures.`;
    }
    return `${email}'s entry is restricted since ${now.restrictedAt}: kept, and used for nothing else until you run this again with --lift. Nothing is e-mailed to them, no wave lets them in, no retention pass removes them, and they count in no figure; a leave still deletes the entry.`;
  },
});
