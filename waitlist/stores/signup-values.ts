import { noAttribution } from "../attribution";
import type { NewSignup } from "./store";

/**
 * A new signup's values in the order both SQL stores insert them: email,
 * email_key, created_at, source, the seven attribution columns,
 * confirmation_sent_at, privacy_policy_at_signup, consent_at_signup and
 * opt_in_since. `time` writes an instant as the database takes it (a Date
 * for Postgres, ISO text for SQLite).
 */
export function signupValues<Time>(entry: NewSignup, at: Date, time: (instant: Date) => Time) {
  const a = entry.attribution ?? noAttribution;
  return [
    entry.email,
    entry.emailKey,
    time(at),
    entry.source,
    a.utmSource,
    a.utmMedium,
    a.utmCampaign,
    a.utmContent,
    a.utmTerm,
    a.ref,
    a.landingPath,
    entry.confirmationSentAt ? time(entry.confirmationSentAt) : null,
    entry.privacyPolicy ?? null,
    entry.consent ?? null,
    // Asked to confirm now; a signup from before the confirm step (an import) has not been asked yet.
    entry.earlier ? null : time(at),
  ] as const;
}
