import type { StatsSignup } from "../reports/stats";
import { noAttribution } from "../attribution";
import { newInviteCode } from "../invites";
import type { Confirmation, ConfirmationCounts, DepartureKind, FullStore, ListedSignup, NewSignup } from "./store";
import type { OwedConfirmation, RemovedSignup, Signup, UnconfirmedSignup } from "./store";

/*
 * The waitlist in SQL, said once for SQLite (sqlite-store.ts) and Postgres (postgres-store.ts). Each method is one
 * statement in the SQL both speak, $1…$n for parameters, instants in and out as ISO text. What the two say
 * differently is behind SqlDatabase: running a statement, and a delete counted as a departure atomically (one
 * statement in Postgres, a transaction in SQLite). The sweep and the retention read through partial indexes, so
 * their work grows with what is owed or expired, never with the list.
 */

/** A value a statement takes: instants as ISO text, booleans as they are (SQLite's driver writes 1 and 0). */
export type SqlValue = string | number | boolean | null;

/** A departure to count with each row a delete removes: when and how, never who. */
export interface Departure {
  how: DepartureKind;
  at: string;
  /**
   * A keyed digest of who left, kept until the retention drops it (waitlist/leavers.ts): only with a deleted row
   * that says `"confirmed"`, a member once handed to a launch tool.
   */
  digest?: string;
}

/** What the SQL store needs of a database. */
export interface SqlDatabase {
  /** Runs one statement; resolves with its rows, instants as ISO text (UTC, milliseconds). */
  query<T>(sql: string, values?: readonly SqlValue[]): Promise<T[]>;
  /** A `DELETE … RETURNING`, each row counted as `departure`, all or nothing; then gone from the files too. */
  deleteCounted<T>(deleteSql: string, values: readonly SqlValue[], departure: Departure): Promise<T[]>;
  close(): Promise<void>;
}

/** Every column of a signup, by the name the store interface gives it; the column is that name in snake_case. */
const allColumns = [
  ...["email", "emailKey", "createdAt", "source", "confirmationSentAt", "confirmationFailedAt", "confirmationError"],
  ...["confirmationCapped", "utmSource", "utmMedium", "utmCampaign", "utmContent", "utmTerm", "ref", "landingPath"],
  ...["confirmedAt", "privacyPolicyAtSignup", "privacyPolicyAtConfirm", "optInSince", "consentAtSignup"],
  ...["consentAtConfirm", "inviteCode", "invitedBy", "mailbox"],
] as const satisfies readonly (keyof Signup)[];
const column = (name: keyof Signup) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
/** `column AS "name"` for each name: both databases fold an unquoted alias to lower case. */
const select = (...names: (keyof Signup)[]) => names.map((name) => `${column(name)} AS "${name}"`).join(", ");
/** An owed confirmation: its asking under way (a repeat signup's asked_at), or the first. */
const owedColumns = `${select("email", "emailKey", "createdAt")}, coalesce(asked_at, opt_in_since) AS "optInSince"`;
/** Still owed: neither sent nor refused for good. */
const owed = "confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL";
/** No LIMIT: a number both databases take. */
const unlimited = (limit: number) => (Number.isFinite(limit) ? limit : Number.MAX_SAFE_INTEGER);
const iso = (at: Date) => at.toISOString();
/**
 * A signup's confirmed invitees, now: one per mailbox, never its own, none who left (their rows are gone), through
 * the invited_by index. `inviter` names the inviter's row in the statement.
 */
const confirmedInvites = (inviter: string) =>
  `(SELECT CAST(count(DISTINCT i.mailbox) AS integer) FROM signups i
    WHERE i.invited_by = ${inviter}.invite_code AND i.confirmed_at IS NOT NULL
      AND i.mailbox IS DISTINCT FROM ${inviter}.mailbox) AS "confirmedInvites"`;
/** A count as a number in both databases (Postgres's count is a bigint, which pg hands over as text). */
const count = (as: string, where = "TRUE") => `CAST(count(*) FILTER (WHERE ${where}) AS integer) AS "${as}"`;

export class SqlStore implements FullStore {
  constructor(protected readonly db: SqlDatabase) {}

  private async row<T>(sql: string, values: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.db.query<T>(sql, values))[0];
  }

  /** A listed address counts a repeat: as long a write as a new one, so no timing tells it was listed. */
  async add(entry: NewSignup): Promise<{ added: boolean; createdAt: string }> {
    const at = iso(entry.at ?? new Date());
    const a = entry.attribution ?? noAttribution;
    const row = await this.row<{ repeats: number }>(
      `INSERT INTO signups (email, email_key, created_at, source, utm_source, utm_medium, utm_campaign, utm_content,
                            utm_term, ref, landing_path, confirmation_sent_at, privacy_policy_at_signup,
                            consent_at_signup, opt_in_since, mailbox, invited_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
               (SELECT invite_code FROM signups WHERE invite_code = $17))
       ON CONFLICT (email_key) DO UPDATE SET repeat_signups = signups.repeat_signups + 1
       RETURNING repeat_signups AS "repeats"`,
      [
        ...[entry.email, entry.emailKey, at, entry.source],
        ...[a.utmSource, a.utmMedium, a.utmCampaign, a.utmContent, a.utmTerm, a.ref, a.landingPath],
        entry.confirmationSentAt ? iso(entry.confirmationSentAt) : null,
        entry.privacyPolicy ?? null,
        entry.consent ?? null,
        // Asked to confirm now; a signup from before the confirm step has not been asked yet.
        entry.earlier ? null : at,
        entry.mailbox ?? null,
        // Kept only when it is a signup's code: an unknown one finds no row, and is not kept.
        entry.invitedBy ?? null,
      ],
    );
    return { added: row!.repeats === 0, createdAt: at };
  }

  /** A second claimer waits for the first one's row lock (or SQLite's one writer), then finds the lease taken. */
  async claimConfirmation(emailKey: string, { now, leaseMs }: { now: Date; leaseMs: number }) {
    const row = await this.row<{ attempt: number }>(
      `UPDATE signups SET confirmation_claimed_until = $1, confirmation_attempts = confirmation_attempts + 1
       WHERE email_key = $2 AND ${owed} AND (confirmation_claimed_until IS NULL OR confirmation_claimed_until < $3)
       RETURNING confirmation_attempts AS "attempt"`,
      [iso(new Date(now.getTime() + leaseMs)), emailKey, iso(now)],
    );
    return row?.attempt;
  }

  /** One statement: the row, and its invitees counted through the invited_by index (confirmedInvites). */
  async lookup(emailKey: string): Promise<ListedSignup | undefined> {
    return this.row(
      `SELECT ${select("email", "createdAt", "confirmedAt", "inviteCode")}, ${confirmedInvites("signups")}
       FROM signups WHERE email_key = $1`,
      [emailKey],
    );
  }

  /** The first confirmation is kept (a second press rewrites the row as it was): `first` if the time is ours. */
  async confirm(
    emailKey: string,
    { createdAt, at, privacyPolicy, consent = null, inviteCode = newInviteCode() }: Confirmation,
  ) {
    if (Number.isNaN(Date.parse(createdAt))) return undefined;
    const first = "confirmed_at IS NULL";
    const row = await this.row<{ confirmedAt: string; inviteCode: string }>(
      `UPDATE signups SET confirmed_at = coalesce(confirmed_at, $3),
         privacy_policy_at_confirm = CASE WHEN ${first} THEN $4 ELSE privacy_policy_at_confirm END,
         consent_at_confirm = CASE WHEN ${first} THEN $5 ELSE consent_at_confirm END,
         invite_code = coalesce(invite_code, $6)
       WHERE email_key = $1 AND created_at = $2
       RETURNING ${select("confirmedAt", "inviteCode")}`,
      [emailKey, createdAt, iso(at), privacyPolicy, consent, inviteCode],
    );
    return row && { ...row, first: row.confirmedAt === iso(at) };
  }

  async askToConfirm(
    emailKey: string,
    at: Date,
    { resendAfterMs }: { resendAfterMs?: number } = {},
  ): Promise<OwedConfirmation | undefined> {
    return this.row<OwedConfirmation>(
      `UPDATE signups SET opt_in_since = coalesce(opt_in_since, $1), asked_at = $1,
                          confirmation_sent_at = NULL, confirmation_failed_at = NULL, confirmation_error = NULL,
                          confirmation_next_at = NULL, confirmation_claimed_until = NULL,
                          confirmation_attempts = 0, confirmation_capped = $5
       WHERE email_key = $2 AND confirmed_at IS NULL
         AND (NOT $3 OR confirmation_failed_at IS NULL OR confirmation_capped)
         AND (opt_in_since IS NULL OR ($3 AND coalesce(confirmation_sent_at, confirmation_failed_at) <= $4))
       RETURNING ${select("email", "emailKey", "createdAt")}, asked_at AS "optInSince"`,
      [iso(at), emailKey, resendAfterMs !== undefined, iso(new Date(at.getTime() - (resendAfterMs ?? 0))), false],
    );
  }

  /** One address's row changed: `set` takes $2… from `values`. */
  private async update(emailKey: string, set: string, values: readonly SqlValue[]): Promise<void> {
    await this.db.query(`UPDATE signups SET ${set} WHERE email_key = $1`, [emailKey, ...values]);
  }

  async markConfirmationSent(emailKey: string, at: Date): Promise<void> {
    const set = `confirmation_sent_at = $2, opt_in_since = coalesce(opt_in_since, $2), confirmation_claimed_until = NULL,
                 confirmation_error = NULL, confirmation_next_at = NULL`;
    await this.update(emailKey, set, [iso(at)]);
  }

  async releaseConfirmation(emailKey: string, error: string, retryAt: Date): Promise<void> {
    const set = "confirmation_claimed_until = NULL, confirmation_error = $2, confirmation_next_at = $3";
    await this.update(emailKey, set, [error.slice(0, 500), iso(retryAt)]);
  }

  async failConfirmation(emailKey: string, error: string, at: Date, { capped = false } = {}): Promise<void> {
    const set = `confirmation_claimed_until = NULL, confirmation_error = $2, confirmation_failed_at = $3,
                 confirmation_next_at = NULL, confirmation_capped = $4`;
    await this.update(emailKey, set, [error.slice(0, 500), iso(at), capped]);
  }

  async countMailboxMail(counter: string, day: string): Promise<number> {
    const row = await this.row<{ mails: number }>(
      `INSERT INTO mailbox_mail (counter, day, mails) VALUES ($1, $2, 1)
       ON CONFLICT (counter, day) DO UPDATE SET mails = mailbox_mail.mails + 1 RETURNING mails`,
      [counter, day],
    );
    return row!.mails;
  }

  async forgetMailboxMailBefore(day: string): Promise<void> {
    await this.db.query("DELETE FROM mailbox_mail WHERE day < $1", [day]);
  }

  async pendingConfirmations(): Promise<OwedConfirmation[]> {
    return this.db.query(`SELECT ${owedColumns} FROM signups WHERE ${owed} ORDER BY created_at, id`);
  }

  async dueConfirmations(now: Date, limit: number): Promise<OwedConfirmation[]> {
    return this.db.query(
      `SELECT ${owedColumns} FROM signups
       WHERE ${owed} AND (confirmation_claimed_until IS NULL OR confirmation_claimed_until < $1)
         AND (confirmation_next_at IS NULL OR confirmation_next_at <= $1)
       ORDER BY created_at, id LIMIT $2`,
      [iso(now), unlimited(limit)],
    );
  }

  /** Only reads: the store keeps no bookkeeping to tidy. */
  async expiredUnconfirmed(before: Date, limit: number): Promise<UnconfirmedSignup[]> {
    return this.db.query(
      `SELECT ${select("email", "emailKey", "createdAt", "optInSince")} FROM signups
       WHERE confirmed_at IS NULL AND opt_in_since IS NOT NULL AND opt_in_since < $1
       ORDER BY opt_in_since, id LIMIT $2`,
      [iso(before), unlimited(limit)],
    );
  }

  async removeUnconfirmed(signups: readonly UnconfirmedSignup[], at: Date): Promise<RemovedSignup[]> {
    if (signups.length === 0) return [];
    const pairs = signups.map((_, n) => `(email_key = $${2 * n + 1} AND opt_in_since = $${2 * n + 2})`);
    const removed = await this.db.deleteCounted<RemovedSignup & { emailKey: string }>(
      `DELETE FROM signups WHERE confirmed_at IS NULL AND (${pairs.join(" OR ")})
       RETURNING ${select("email", "emailKey", "createdAt", "optInSince")}`,
      signups.flatMap((one) => [one.emailKey, one.optInSince]),
      { how: "pruned", at: iso(at) },
    );
    // In the order they were found, without the key.
    const order = new Map(signups.map((one, n) => [one.emailKey, n]));
    return removed
      .sort((a, b) => order.get(a.emailKey)! - order.get(b.emailKey)!)
      .map(({ email, createdAt, optInSince }) => ({ email, createdAt, optInSince }));
  }

  async failedConfirmations(): Promise<{ email: string; failedAt: string; error: string }[]> {
    return this.db.query(
      `SELECT email, confirmation_failed_at AS "failedAt", confirmation_error AS "error" FROM signups
       WHERE confirmation_failed_at IS NOT NULL ORDER BY id`,
    );
  }

  async confirmationCounts(): Promise<ConfirmationCounts> {
    return (await this.row<ConfirmationCounts>(
      `SELECT ${count("sent", "confirmation_sent_at IS NOT NULL")}, ${count("pending", owed)},
              ${count("failed", "confirmation_failed_at IS NOT NULL")}
       FROM signups`,
    ))!;
  }

  /** The links' secret when WAITLIST_SECRET is not set; the first one made wins. Read first: it exists. */
  async secret(name: "leave", make: () => string): Promise<string> {
    const key = `${name}_secret`;
    const read = () => this.row<{ value: string }>("SELECT value FROM settings WHERE name = $1", [key]);
    const found = await read();
    if (found) return found.value;
    await this.db.query("INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING", [key, make()]);
    return (await read())!.value;
  }

  /** The row goes and the departure is counted, or neither. */
  async remove(emailKey: string, how: DepartureKind, at: Date, digest?: string) {
    const [removed] = await this.db.deleteCounted<{ email: string; createdAt: string; confirmed: unknown }>(
      `DELETE FROM signups WHERE email_key = $1
       RETURNING ${select("email", "createdAt")}, confirmed_at IS NOT NULL AS "confirmed"`,
      [emailKey],
      { how, at: iso(at), digest },
    );
    return removed && { email: removed.email, createdAt: removed.createdAt };
  }

  async forgetLeaverDigestsBefore(before: Date): Promise<void> {
    await this.db.query("UPDATE departures SET digest = NULL WHERE digest IS NOT NULL AND left_at < $1", [iso(before)]);
  }

  async leaverDigests(since: Date): Promise<{ digest: string; leftAt: string }[]> {
    return this.db.query(
      `SELECT digest, left_at AS "leftAt" FROM departures WHERE digest IS NOT NULL AND left_at >= $1 ORDER BY left_at, id`,
      [iso(since)],
    );
  }

  async lastConfirmationError(): Promise<string | undefined> {
    const row = await this.row<{ error: string }>(
      `SELECT confirmation_error AS "error" FROM signups
       WHERE confirmation_error IS NOT NULL AND confirmation_sent_at IS NULL
       ORDER BY coalesce(confirmation_failed_at, confirmation_next_at) DESC NULLS LAST LIMIT 1`,
    );
    return row?.error;
  }

  async departures(): Promise<number> {
    return (await this.row<{ n: number }>(`SELECT ${count("n")} FROM departures`))!.n;
  }

  async departureCounts(between?: { from: Date; to: Date }): Promise<{ left: number; pruned: number }> {
    const within = between ? "left_at >= $1 AND left_at < $2" : "TRUE";
    return (await this.row<{ left: number; pruned: number }>(
      `SELECT ${count("left", "how <> 'pruned'")}, ${count("pruned", "how = 'pruned'")} FROM departures WHERE ${within}`,
      between ? [iso(between.from), iso(between.to)] : [],
    ))!;
  }

  /**
   * The announcements a signup was sent, in its row (`,id,id,`): a leave deletes them with it. The id is checked,
   * so LIKE finds it whole: no `%`, `_` nor `,` in it.
   */
  async noteAnnouncement(emailKey: string, id: string, { undo = false }: { undo?: boolean } = {}): Promise<boolean> {
    if (!/^[a-z0-9-]+$/i.test(id)) throw new Error(`An announcement's id is letters, digits and "-" (got "${id}").`);
    const noted = "coalesce(announcements, ',') LIKE '%,' || CAST($2 AS text) || ',%'";
    const rows = await this.db.query(
      undo
        ? `UPDATE signups SET announcements = replace(announcements, ',' || CAST($2 AS text) || ',', ',')
           WHERE email_key = $1 AND ${noted} RETURNING email`
        : `UPDATE signups SET announcements = coalesce(announcements, ',') || CAST($2 AS text) || ','
           WHERE email_key = $1 AND confirmed_at IS NOT NULL AND NOT (${noted}) RETURNING email`,
      [emailKey, id],
    );
    return rows.length === 1;
  }

  async once(name: string): Promise<boolean> {
    const done = `once ${name}`;
    const rows = await this.db.query(
      "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING name",
      [done, iso(new Date())],
    );
    return rows.length === 1;
  }

  /** What stats needs of every row, and no more (all() of 100,000 rows takes a second). */
  async statsRows(): Promise<StatsSignup[]> {
    return this.db.query(
      `SELECT ${select("createdAt", "utmSource", "utmCampaign", "ref", "confirmedAt", "inviteCode", "invitedBy", "mailbox")}
       FROM signups`,
    );
  }

  async count(): Promise<number> {
    return (await this.row<{ n: number }>(`SELECT ${count("n")} FROM signups`))!.n;
  }

  async all(): Promise<Signup[]> {
    const rows = await this.db.query<Signup>(`SELECT ${select(...allColumns)} FROM signups ORDER BY created_at, id`);
    return rows.map((row) => ({ ...row, confirmationCapped: Boolean(row.confirmationCapped) }));
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
