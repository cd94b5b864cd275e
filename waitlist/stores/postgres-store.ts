import { Pool } from "pg";
import { migrate } from "./postgres-migrations";
import { signupValues } from "./signup-values";
import type { StatsSignup } from "../stats";
import {
  StoreError,
  type Confirmation,
  type ConfirmationCounts,
  type DepartureKind,
  type FullStore,
  type ListedSignup,
  type NewSignup,
  type OwedConfirmation,
  type RemovedSignup,
  type Signup,
  type UnconfirmedSignup,
} from "./store";

/** A pg-compatible pool: pg's own, or Neon's serverless one (what `@netlify/database` hands out). */
export type PgPool = Pick<Pool, "query" | "end">;

/** A timestamp as the store interface gives it: UTC, ISO 8601, milliseconds. */
const iso = (column: string, as: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "${as}"`;

const signupColumns = `email, email_key AS "emailKey", ${iso("created_at", "createdAt")}`;
/** An owed confirmation's asking: a repeat signup's (asked_at), or the first. */
const owedColumns = `${signupColumns}, ${iso("coalesce(asked_at, opt_in_since)", "optInSince")}`;
/** What the retention counts from: the first asking. */
const unconfirmedColumns = `${signupColumns}, ${iso("opt_in_since", "optInSince")}`;

/**
 * The waitlist in Postgres (Netlify Database, or DATABASE_URL for npm start),
 * over the schema of netlify/database/migrations/. Each method is one
 * statement: "once" is the unique key on email_key, and a confirm, a leave or
 * the claim of an owed mail is atomic without a transaction around it. The
 * sweep and the retention read through partial indexes, so their work grows
 * with what is owed or expired, never with the list.
 */
export class PostgresStore implements FullStore {
  constructor(
    private readonly pool: PgPool,
    /** Whether close() ends the pool: false when it is shared (Netlify's, one per function instance). */
    private readonly options: { endPool?: boolean } = {},
  ) {}

  private async rows<T>(sql: string, values: unknown[] = []): Promise<T[]> {
    return (await this.pool.query(sql, values)).rows as T[];
  }

  private async row<T>(sql: string, values: unknown[] = []): Promise<T | undefined> {
    return (await this.rows<T>(sql, values))[0];
  }

  async add(entry: NewSignup): Promise<{ added: boolean; createdAt: string }> {
    const at = entry.at ?? new Date();
    // A listed address is counted as a repeat: the same durable write as a new one (see SqliteStore).
    const row = await this.row<{ repeats: number }>(
      `INSERT INTO signups (email, email_key, created_at, source,
                            utm_source, utm_medium, utm_campaign, utm_content, utm_term, ref, landing_path,
                            confirmation_sent_at, privacy_policy_at_signup, consent_at_signup, opt_in_since)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
       ON CONFLICT (email_key) DO UPDATE SET repeat_signups = signups.repeat_signups + 1
       RETURNING repeat_signups AS repeats`,
      [...signupValues(entry, at, (instant) => instant)],
    );
    return { added: row!.repeats === 0, createdAt: at.toISOString() };
  }

  async claimConfirmation(emailKey: string, { now, leaseMs }: { now: Date; leaseMs: number }) {
    // One statement: a second claimer waits for the first one's row lock, then finds the lease taken.
    const row = await this.row<{ attempt: number }>(
      `UPDATE signups SET confirmation_claimed_until = $1, confirmation_attempts = confirmation_attempts + 1
       WHERE email_key = $2 AND confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL
         AND (confirmation_claimed_until IS NULL OR confirmation_claimed_until < $3)
       RETURNING confirmation_attempts AS attempt`,
      [new Date(now.getTime() + leaseMs), emailKey, now],
    );
    return row?.attempt;
  }

  async lookup(emailKey: string): Promise<ListedSignup | undefined> {
    return this.row<ListedSignup>(
      `SELECT email, ${iso("created_at", "createdAt")}, ${iso("confirmed_at", "confirmedAt")}
       FROM signups WHERE email_key = $1`,
      [emailKey],
    );
  }

  async confirm(emailKey: string, { createdAt, at, privacyPolicy, consent = null }: Confirmation) {
    const signedUp = new Date(createdAt);
    if (Number.isNaN(signedUp.getTime())) return undefined;
    // FOR UPDATE waits for a confirm or a leave under way and then reads the row as it left it: of simultaneous
    // confirms one is first, and a confirm after a leave finds nothing.
    const row = await this.row<{ confirmedAt: string; first: boolean }>(
      `WITH target AS (
         SELECT id, confirmed_at FROM signups WHERE email_key = $1 AND created_at = $2 FOR UPDATE
       ), updated AS (
         UPDATE signups SET confirmed_at = $3, privacy_policy_at_confirm = $4, consent_at_confirm = $5
         FROM target WHERE signups.id = target.id AND target.confirmed_at IS NULL
         RETURNING signups.confirmed_at
       )
       SELECT ${iso("coalesce(target.confirmed_at, (SELECT confirmed_at FROM updated))", "confirmedAt")},
              target.confirmed_at IS NULL AS first
       FROM target`,
      [emailKey, signedUp, at, privacyPolicy, consent],
    );
    return row && { confirmedAt: row.confirmedAt, first: row.first };
  }

  async askToConfirm(
    emailKey: string,
    at: Date,
    { resendAfterMs }: { resendAfterMs?: number } = {},
  ): Promise<OwedConfirmation | undefined> {
    const again = resendAfterMs !== undefined;
    return this.row<OwedConfirmation>(
      `UPDATE signups SET opt_in_since = coalesce(opt_in_since, $1), asked_at = $1,
                          confirmation_sent_at = NULL, confirmation_failed_at = NULL,
                          confirmation_error = NULL, confirmation_next_at = NULL, confirmation_claimed_until = NULL,
                          confirmation_attempts = 0, confirmation_capped = false
       WHERE email_key = $2 AND confirmed_at IS NULL
         AND (NOT $3 OR confirmation_failed_at IS NULL OR confirmation_capped)
         AND (opt_in_since IS NULL
              OR ($3 AND coalesce(confirmation_sent_at, confirmation_failed_at) <= $4))
       RETURNING ${signupColumns}, ${iso("asked_at", "optInSince")}`,
      [at, emailKey, again, new Date(at.getTime() - (resendAfterMs ?? 0))],
    );
  }

  async markConfirmationSent(emailKey: string, at: Date): Promise<void> {
    await this.pool.query(
      `UPDATE signups SET confirmation_sent_at = $1, confirmation_claimed_until = NULL, confirmation_error = NULL,
                          confirmation_next_at = NULL, opt_in_since = coalesce(opt_in_since, $1)
       WHERE email_key = $2`,
      [at, emailKey],
    );
  }

  async releaseConfirmation(emailKey: string, error: string, retryAt: Date): Promise<void> {
    await this.pool.query(
      `UPDATE signups SET confirmation_claimed_until = NULL, confirmation_error = $1, confirmation_next_at = $2
       WHERE email_key = $3`,
      [error.slice(0, 500), retryAt, emailKey],
    );
  }

  async failConfirmation(emailKey: string, error: string, at: Date, { capped = false } = {}): Promise<void> {
    await this.pool.query(
      `UPDATE signups SET confirmation_claimed_until = NULL, confirmation_error = $1, confirmation_failed_at = $2,
                          confirmation_next_at = NULL, confirmation_capped = $4
       WHERE email_key = $3`,
      [error.slice(0, 500), at, emailKey, capped],
    );
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
    await this.pool.query("DELETE FROM mailbox_mail WHERE day < $1", [day]);
  }

  async pendingConfirmations(): Promise<OwedConfirmation[]> {
    return this.rows<OwedConfirmation>(
      `SELECT ${owedColumns} FROM signups
       WHERE confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL ORDER BY created_at, id`,
    );
  }

  /** Through signups_confirmation_owed: the owed rows only, oldest first. */
  async dueConfirmations(now: Date, limit: number): Promise<OwedConfirmation[]> {
    return this.rows<OwedConfirmation>(
      `SELECT ${owedColumns} FROM signups
       WHERE confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL
         AND (confirmation_claimed_until IS NULL OR confirmation_claimed_until < $1)
         AND (confirmation_next_at IS NULL OR confirmation_next_at <= $1)
       ORDER BY created_at, id LIMIT $2`,
      [now, limit],
    );
  }

  /** Through signups_unconfirmed. Only reads: the store keeps no bookkeeping to tidy. */
  async expiredUnconfirmed(before: Date, limit: number): Promise<UnconfirmedSignup[]> {
    return this.rows<UnconfirmedSignup>(
      `SELECT ${unconfirmedColumns} FROM signups
       WHERE confirmed_at IS NULL AND opt_in_since IS NOT NULL AND opt_in_since < $1
       ORDER BY opt_in_since, id LIMIT $2`,
      [before, Number.isFinite(limit) ? limit : null],
    );
  }

  async failedConfirmations(): Promise<{ email: string; failedAt: string; error: string }[]> {
    return this.rows(
      `SELECT email, ${iso("confirmation_failed_at", "failedAt")}, confirmation_error AS error FROM signups
       WHERE confirmation_failed_at IS NOT NULL ORDER BY id`,
    );
  }

  async confirmationCounts(): Promise<ConfirmationCounts> {
    return (await this.row<ConfirmationCounts>(
      `SELECT count(confirmation_sent_at)::int AS sent,
              (count(*) FILTER (WHERE confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL))::int AS pending,
              count(confirmation_failed_at)::int AS failed
       FROM signups`,
    ))!;
  }

  /** Kept in the database (the leave links' secret when WAITLIST_SECRET is not set); the first one made wins. */
  async secret(name: "leave", make: () => string): Promise<string> {
    const key = `${name}_secret`;
    const read = () => this.row<{ value: string }>("SELECT value FROM settings WHERE name = $1", [key]);
    const found = await read();
    if (found) return found.value;
    await this.pool.query("INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING", [key, make()]);
    // A new statement, a new snapshot: it sees the row of whichever store made it first.
    return (await read())!.value;
  }

  /** One statement: the row goes and the departure is counted, or neither. */
  async remove(emailKey: string, how: DepartureKind, at: Date, createdAt?: string) {
    const signedUp = createdAt === undefined ? null : new Date(createdAt);
    if (signedUp && Number.isNaN(signedUp.getTime())) return undefined;
    return this.row<{ email: string; createdAt: string }>(
      `WITH gone AS (
         DELETE FROM signups WHERE email_key = $1 AND ($2::timestamptz IS NULL OR created_at = $2)
         RETURNING email, created_at
       ), counted AS (
         INSERT INTO departures (left_at, how) SELECT $3, $4 FROM gone
       )
       SELECT email, ${iso("created_at", "createdAt")} FROM gone`,
      [emailKey, signedUp, at, how],
    );
  }

  async removeUnconfirmed(signups: readonly UnconfirmedSignup[], at: Date): Promise<RemovedSignup[]> {
    if (signups.length === 0) return [];
    return this.rows<RemovedSignup>(
      `WITH found AS (
         SELECT * FROM unnest($1::text[], $2::timestamptz[]) WITH ORDINALITY AS found (email_key, opt_in_since, n)
       ), gone AS (
         DELETE FROM signups USING found
         WHERE signups.email_key = found.email_key AND signups.confirmed_at IS NULL
           AND signups.opt_in_since = found.opt_in_since
         RETURNING found.n, signups.email, signups.created_at, signups.opt_in_since
       ), counted AS (
         INSERT INTO departures (left_at, how) SELECT $3, 'pruned' FROM gone
       )
       SELECT email, ${iso("created_at", "createdAt")}, ${iso("opt_in_since", "optInSince")} FROM gone ORDER BY n`,
      [signups.map((one) => one.emailKey), signups.map((one) => new Date(one.optInSince)), at],
    );
  }

  async lastConfirmationError(): Promise<string | undefined> {
    const row = await this.row<{ error: string }>(
      `SELECT confirmation_error AS error FROM signups
       WHERE confirmation_error IS NOT NULL AND confirmation_sent_at IS NULL
       ORDER BY coalesce(confirmation_failed_at, confirmation_next_at) DESC NULLS LAST LIMIT 1`,
    );
    return row?.error;
  }

  async departures(): Promise<number> {
    return (await this.row<{ n: number }>("SELECT count(*)::int AS n FROM departures"))!.n;
  }

  async departureCounts(): Promise<{ left: number; pruned: number }> {
    return (await this.row<{ left: number; pruned: number }>(
      `SELECT (count(*) FILTER (WHERE how <> 'pruned'))::int AS left,
              (count(*) FILTER (WHERE how = 'pruned'))::int AS pruned
       FROM departures`,
    ))!;
  }

  async statsRows(): Promise<StatsSignup[]> {
    return this.rows<StatsSignup>(
      `SELECT ${iso("created_at", "createdAt")}, utm_source AS "utmSource", utm_campaign AS "utmCampaign", ref,
              ${iso("confirmed_at", "confirmedAt")}
       FROM signups`,
    );
  }

  async count(): Promise<number> {
    return (await this.row<{ n: number }>("SELECT count(*)::int AS n FROM signups"))!.n;
  }

  async all(): Promise<Signup[]> {
    return this.rows<Signup>(
      `SELECT email, email_key AS "emailKey", ${iso("created_at", "createdAt")}, source,
              ${iso("confirmation_sent_at", "confirmationSentAt")},
              ${iso("confirmation_failed_at", "confirmationFailedAt")},
              confirmation_error AS "confirmationError", confirmation_capped AS "confirmationCapped",
              utm_source AS "utmSource", utm_medium AS "utmMedium", utm_campaign AS "utmCampaign",
              utm_content AS "utmContent", utm_term AS "utmTerm", ref, landing_path AS "landingPath",
              ${iso("confirmed_at", "confirmedAt")}, privacy_policy_at_signup AS "privacyPolicyAtSignup",
              privacy_policy_at_confirm AS "privacyPolicyAtConfirm", ${iso("opt_in_since", "optInSince")},
              consent_at_signup AS "consentAtSignup", consent_at_confirm AS "consentAtConfirm"
       FROM signups ORDER BY created_at, id`,
    );
  }

  /**
   * Copies in the signups another store holds (the Blobs store of a site
   * moving to Netlify Database), each with its times, attribution, mail state
   * and record of consent, in batches of one statement. An address already
   * here keeps its row: run again, it adds only what is missing. Resolves
   * with how many it added.
   */
  async copyIn(rows: readonly Signup[], batch = 500): Promise<number> {
    let added = 0;
    for (let start = 0; start < rows.length; start += batch) {
      const inserted = await this.rows(
        `INSERT INTO signups (email, email_key, created_at, source, utm_source, utm_medium, utm_campaign, utm_content,
           utm_term, ref, landing_path, confirmation_sent_at, confirmation_failed_at, confirmation_error,
           confirmation_capped, confirmed_at, opt_in_since, privacy_policy_at_signup, privacy_policy_at_confirm, consent_at_signup, consent_at_confirm)
         SELECT "email", "emailKey", "createdAt", "source", "utmSource", "utmMedium", "utmCampaign", "utmContent",
           "utmTerm", "ref", "landingPath", "confirmationSentAt", "confirmationFailedAt", "confirmationError",
           coalesce("confirmationCapped", false), "confirmedAt", "optInSince", "privacyPolicyAtSignup", "privacyPolicyAtConfirm", "consentAtSignup",
           "consentAtConfirm"
         FROM jsonb_to_recordset($1::jsonb) AS row("email" text, "emailKey" text, "createdAt" timestamptz,
           "source" text, "utmSource" text, "utmMedium" text, "utmCampaign" text, "utmContent" text, "utmTerm" text,
           "ref" text, "landingPath" text, "confirmationSentAt" timestamptz, "confirmationFailedAt" timestamptz,
           "confirmationError" text, "confirmationCapped" boolean, "confirmedAt" timestamptz, "optInSince" timestamptz,
           "privacyPolicyAtSignup" text, "privacyPolicyAtConfirm" text, "consentAtSignup" text,
           "consentAtConfirm" text)
         ON CONFLICT (email_key) DO NOTHING
         RETURNING 1`,
        [JSON.stringify(rows.slice(start, start + batch))],
      );
      added += inserted.length;
    }
    return added;
  }

  async close(): Promise<void> {
    if (this.options.endPool ?? true) await this.pool.end();
  }
}

/** A store over a database URL (DATABASE_URL), its schema brought up to date first (postgres-migrations.ts). */
export async function openPostgresStore(
  databaseUrl: string,
  { warn = () => {} }: { warn?: (message: string) => void } = {},
): Promise<PostgresStore> {
  const pool = new Pool({ connectionString: databaseUrl });
  // An idle connection the server cut off (a restart, a failover): the pool drops it and the next query opens
  // another. Unheard, the pool's error event would end the process.
  pool.on("error", (error) => warn(`The waitlist's database closed a connection: ${error.message}`));
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    if (error instanceof StoreError) throw error;
    // Its name and host, never the URL: that may hold the password.
    const { host, pathname } = new URL(databaseUrl);
    const reason = (error as Error).message.replace(/\.?$/, ".");
    throw new StoreError(`Could not open the waitlist's database ${pathname.slice(1)} on ${host}: ${reason}`);
  }
  return new PostgresStore(pool);
}
