import { checkListedEmail } from "../../waitlist/email-address";
import { command } from "../command";
import { UsageError } from "../errors";

/*
 * The Privacy Policy's right to object (Art. 21 GDPR): ranking people by the creators they invited rests on the
 * founders' legitimate interest, and a person who objects is no longer ranked so. A founder notes it, as they remove
 * someone who asks by e-mail; every wave by invites after counts none for them (waitlist/waves.ts).
 */

export const objectToRanking = command({
  name: "object-to-ranking",
  usage: [
    "object-to-ranking <address>",
    "note that the person objected to being ranked by the creators they",
    "invited (a request by e-mail): a wave by invites counts none for them",
  ],
  takesAddress: true,
  check: (_options, _env, address) => {
    const checked = checkListedEmail(address);
    if (!checked.ok) throw new UsageError(`"${address}" is not a valid address: ${checked.reason}`);
    return checked;
  },
  run: async ({ input: { key, email }, opened: { store } }) => {
    const at = new Date();
    const noted = await store.objectToRanking(key, at);
    if (noted === undefined) return `${email} is not on the waitlist; nothing noted.`;
    const since = noted === at.toISOString() ? "" : ` (noted before, on ${noted})`;
    return `Noted${since}: ${email} is not ranked by the creators they invited. A wave by invites counts none for them; a wave by signup is as before.`;
  },
});
