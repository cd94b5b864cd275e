import { chmodSync, closeSync, mkdirSync, openSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
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
import { migrate } from "./sqlite-migrations";

/**
 * Every address and the link secret are in the file: readable by this user
 * only, whatever the umask. Its folder, when made here, is 0700; the file is
 * created 0600, or made so when an earlier version created it 0644, and so
 * are its WAL and SHM files, which SQLite creates with the file's own mode.
 */
function makePrivate(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  closeSync(openSync(file, "a", 0o600));
  for (const one of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(one, 0o600);
    } catch (error) {
      // Not there yet, or another user's file (a founder's command on the server's store): left as it is.
      if (!["ENOENT", "EPERM"].includes((error as NodeJS.ErrnoException).code ?? "")) throw error;
    }
  }
}

/**
 * The waitlist of npm start and gatsby develop in one SQLite file. WAL with
 * synchronous=FULL: when add() resolves, the row is on disk and survives a
 * crash or power loss. better-sqlite3 is synchronous; each method is one
 * statement or one transaction, so no two requests interleave inside one.
 */
export class SqliteStore implements FullStore {
  readonly file: string;
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<
    [string, string, string, string, ...(string | null)[]],
    { repeats: number }
  >;

  constructor(file: string) {
    this.file = file;
    if (file !== ":memory:") makePrivate(path.resolve(file));
    this.db = new Database(file);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma("synchronous = FULL");
    this.db.pragma("busy_timeout = 5000");
    this.db.pragma("foreign_keys = ON");
    // A removed address is overwritten on disk, not left in a free page.
    this.db.pragma("secure_delete = ON");
    this.assertSettings();
    migrate(this.db, this.file);
    // A listed address is counted as a repeat: the same durable write as a new one, so that the time a
    // signup takes does not tell whether the address was listed. Its first attribution stays.
    this.insert = this.db.prepare(
      `INSERT INTO signups (email, email_key, created_at, source,
                            utm_source, utm_medium, utm_campaign, utm_content, utm_term, ref, landing_path,
                            confirmation_sent_at, privacy_policy_at_signup, consent_at_signup, opt_in_since)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (email_key) DO UPDATE SET repeat_signups = repeat_signups + 1
       RETURNING repeat_signups AS repeats`,
    );
  }

  /** Opens an existing store for reading, or explains what to run when there is none. */
  static openExisting(file: string): SqliteStore {
    const resolved = path.resolve(file);
    try {
      new Database(resolved, { readonly: true, fileMustExist: true }).close();
    } catch {
      throw new StoreError(
        `No waitlist store at ${resolved}. Signups are stored there once the site runs (npm start); set WAITLIST_DB to read another file.`,
      );
    }
    return new SqliteStore(resolved);
  }

  private assertSettings(): void {
    const settings = {
      journal_mode: this.db.pragma("journal_mode", { simple: true }),
      synchronous: this.db.pragma("synchronous", { simple: true }),
      busy_timeout: this.db.pragma("busy_timeout", { simple: true }),
    };
    const memory = this.file === ":memory:";
    if ((!memory && settings.journal_mode !== "wal") || settings.synchronous !== 2 || settings.busy_timeout !== 5000) {
      throw new StoreError(`The waitlist store could not be made durable: ${JSON.stringify(settings)}.`);
    }
  }

  async add(entry: NewSignup): Promise<{ added: boolean; createdAt: string }> {
    const at = entry.at ?? new Date();
    // A listed address is counted as a repeat: the same durable write as a new one (see the constructor).
    const { repeats } = this.insert.get(...signupValues(entry, at, (instant) => instant.toISOString()))!;
    return { added: repeats === 0, createdAt: at.toISOString() };
  }

  async claimConfirmation(emailKey: string, { now, leaseMs }: { now: Date; leaseMs: number }) {
    const row = this.db
      .prepare(
        `UPDATE signups SET confirmation_claimed_until = ?, confirmation_attempts = confirmation_attempts + 1
         WHERE email_key = ? AND confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL
           AND (confirmation_claimed_until IS NULL OR confirmation_claimed_until < ?)
         RETURNING confirmation_attempts AS attempt`,
      )
      .get(new Date(now.getTime() + leaseMs).toISOString(), emailKey, now.toISOString()) as
      { attempt: number } | undefined;
    return row?.attempt;
  }

  async lookup(emailKey: string): Promise<ListedSignup | undefined> {
    return this.db
      .prepare("SELECT email, created_at AS createdAt, confirmed_at AS confirmedAt FROM signups WHERE email_key = ?")
      .get(emailKey) as ListedSignup | undefined;
  }

  async confirm(emailKey: string, { createdAt, at, privacyPolicy, consent = null }: Confirmation) {
    return this.db.transaction(() => {
      const first = this.db
        .prepare(
          `UPDATE signups SET confirmed_at = ?, privacy_policy_at_confirm = ?, consent_at_confirm = ?
           WHERE email_key = ? AND created_at = ? AND confirmed_at IS NULL`,
        )
        .run(at.toISOString(), privacyPolicy, consent, emailKey, createdAt).changes;
      const row = this.db
        .prepare("SELECT confirmed_at AS confirmedAt FROM signups WHERE email_key = ? AND created_at = ?")
        .get(emailKey, createdAt) as { confirmedAt: string } | undefined;
      return row ? { confirmedAt: row.confirmedAt, first: first === 1 } : undefined;
    })();
  }

  async askToConfirm(
    emailKey: string,
    at: Date,
    { resendAfterMs }: { resendAfterMs?: number } = {},
  ): Promise<OwedConfirmation | undefined> {
    const again = resendAfterMs !== undefined;
    return this.db
      .prepare(
        `UPDATE signups SET opt_in_since = coalesce(opt_in_since, @at), asked_at = @at,
                            confirmation_sent_at = NULL, confirmation_failed_at = NULL,
                            confirmation_error = NULL, confirmation_next_at = NULL, confirmation_claimed_until = NULL,
                            confirmation_attempts = 0, confirmation_capped = 0
         WHERE email_key = @emailKey AND confirmed_at IS NULL
           AND (NOT @again OR confirmation_failed_at IS NULL OR confirmation_capped)
           AND (opt_in_since IS NULL
                OR (@again AND coalesce(confirmation_sent_at, confirmation_failed_at) <= @sentBefore))
         RETURNING email, email_key AS emailKey, created_at AS createdAt, asked_at AS optInSince`,
      )
      .get({
        at: at.toISOString(),
        emailKey,
        again: again ? 1 : 0,
        sentBefore: new Date(at.getTime() - (resendAfterMs ?? 0)).toISOString(),
      }) as OwedConfirmation | undefined;
  }

  async markConfirmationSent(emailKey: string, at: Date): Promise<void> {
    this.db
      .prepare(
        `UPDATE signups SET confirmation_sent_at = ?, confirmation_claimed_until = NULL, confirmation_error = NULL,
                            confirmation_next_at = NULL, opt_in_since = coalesce(opt_in_since, ?)
         WHERE email_key = ?`,
      )
      .run(at.toISOString(), at.toISOString(), emailKey);
  }

  async releaseConfirmation(emailKey: string, error: string, retryAt: Date): Promise<void> {
    this.db
      .prepare(
        `UPDATE signups SET confirmation_claimed_until = NULL, confirmation_error = ?, confirmation_next_at = ?
         WHERE email_key = ?`,
      )
      .run(error.slice(0, 500), retryAt.toISOString(), emailKey);
  }

  async failConfirmation(emailKey: string, error: string, at: Date, { capped = false } = {}): Promise<void> {
    this.db
      .prepare(
        `UPDATE signups SET confirmation_claimed_until = NULL, confirmation_error = ?, confirmation_failed_at = ?,
                            confirmation_next_at = NULL, confirmation_capped = ?
         WHERE email_key = ?`,
      )
      .run(error.slice(0, 500), at.toISOString(), capped ? 1 : 0, emailKey);
  }

  async countMailboxMail(counter: string, day: string): Promise<number> {
    return (
      this.db
        .prepare(
          `INSERT INTO mailbox_mail (counter, day, mails) VALUES (?, ?, 1)
           ON CONFLICT (counter, day) DO UPDATE SET mails = mails + 1 RETURNING mails`,
        )
        .get(counter, day) as { mails: number }
    ).mails;
  }

  async forgetMailboxMailBefore(day: string): Promise<void> {
    this.db.prepare("DELETE FROM mailbox_mail WHERE day < ?").run(day);
  }

  async pendingConfirmations(): Promise<OwedConfirmation[]> {
    return this.db
      .prepare(
        `SELECT email, email_key AS emailKey, created_at AS createdAt,
                coalesce(asked_at, opt_in_since) AS optInSince FROM signups
         WHERE confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL ORDER BY created_at, id`,
      )
      .all() as OwedConfirmation[];
  }

  async dueConfirmations(now: Date, limit: number): Promise<OwedConfirmation[]> {
    const at = now.toISOString();
    return this.db
      .prepare(
        `SELECT email, email_key AS emailKey, created_at AS createdAt,
                coalesce(asked_at, opt_in_since) AS optInSince FROM signups
         WHERE confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL
           AND (confirmation_claimed_until IS NULL OR confirmation_claimed_until < ?)
           AND (confirmation_next_at IS NULL OR confirmation_next_at <= ?)
         ORDER BY created_at, id LIMIT ?`,
      )
      .all(at, at, limit) as OwedConfirmation[];
  }

  async expiredUnconfirmed(before: Date, limit: number): Promise<UnconfirmedSignup[]> {
    return this.db
      .prepare(
        `SELECT email, email_key AS emailKey, created_at AS createdAt, opt_in_since AS optInSince FROM signups
         WHERE confirmed_at IS NULL AND opt_in_since IS NOT NULL AND opt_in_since < ?
         ORDER BY opt_in_since, id LIMIT ?`,
      )
      .all(before.toISOString(), Number.isFinite(limit) ? limit : -1) as UnconfirmedSignup[];
  }

  async failedConfirmations(): Promise<{ email: string; failedAt: string; error: string }[]> {
    return this.db
      .prepare(
        `SELECT email, confirmation_failed_at AS failedAt, confirmation_error AS error FROM signups
         WHERE confirmation_failed_at IS NOT NULL ORDER BY id`,
      )
      .all() as { email: string; failedAt: string; error: string }[];
  }

  async confirmationCounts(): Promise<ConfirmationCounts> {
    return this.db
      .prepare(
        `SELECT count(confirmation_sent_at) AS sent,
                count(*) FILTER (WHERE confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL) AS pending,
                count(confirmation_failed_at) AS failed
         FROM signups`,
      )
      .get() as ConfirmationCounts;
  }

  /**
   * Kept in the file (the leave links' secret when WAITLIST_SECRET is not
   * set), so links keep working across restarts and in a copy of the file.
   */
  async secret(name: "leave", make: () => string): Promise<string> {
    const key = `${name}_secret`;
    this.db.prepare("INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT DO NOTHING").run(key, make());
    return (this.db.prepare("SELECT value FROM settings WHERE name = ?").get(key) as { value: string }).value;
  }

  /** Also clears the write-ahead log afterwards, so the address is gone from the files too. */
  async remove(emailKey: string, how: DepartureKind, at: Date, createdAt?: string) {
    const removed = this.db.transaction(() => {
      const row = this.db
        .prepare(
          `DELETE FROM signups WHERE email_key = ? AND (? IS NULL OR created_at = ?)
           RETURNING email, created_at AS createdAt`,
        )
        .get(emailKey, createdAt ?? null, createdAt ?? null) as { email: string; createdAt: string } | undefined;
      if (row) this.db.prepare("INSERT INTO departures (left_at, how) VALUES (?, ?)").run(at.toISOString(), how);
      return row;
    })();
    if (removed && this.file !== ":memory:") this.db.pragma("wal_checkpoint(TRUNCATE)");
    return removed;
  }

  async removeUnconfirmed(signups: readonly UnconfirmedSignup[], at: Date): Promise<RemovedSignup[]> {
    const remove = this.db.prepare(
      `DELETE FROM signups WHERE email_key = ? AND confirmed_at IS NULL AND opt_in_since = ?
       RETURNING email, created_at AS createdAt, opt_in_since AS optInSince`,
    );
    const depart = this.db.prepare("INSERT INTO departures (left_at, how) VALUES (?, 'pruned')");
    const removed = this.db.transaction(() =>
      signups.flatMap(({ emailKey, optInSince }) => {
        const row = remove.get(emailKey, optInSince) as RemovedSignup | undefined;
        if (row) depart.run(at.toISOString());
        return row ? [row] : [];
      }),
    )();
    if (removed.length > 0 && this.file !== ":memory:") this.db.pragma("wal_checkpoint(TRUNCATE)");
    return removed;
  }

  async lastConfirmationError(): Promise<string | undefined> {
    const row = this.db
      .prepare(
        `SELECT confirmation_error AS error FROM signups
         WHERE confirmation_error IS NOT NULL AND confirmation_sent_at IS NULL
         ORDER BY coalesce(confirmation_failed_at, confirmation_next_at) DESC LIMIT 1`,
      )
      .get() as { error: string } | undefined;
    return row?.error;
  }

  async departures(): Promise<number> {
    return (this.db.prepare("SELECT count(*) AS n FROM departures").get() as { n: number }).n;
  }

  async departureCounts(): Promise<{ left: number; pruned: number }> {
    const row = this.db
      .prepare(
        "SELECT count(*) FILTER (WHERE how <> 'pruned') AS left, count(*) FILTER (WHERE how = 'pruned') AS pruned FROM departures",
      )
      .get() as { left: number; pruned: number };
    return { left: row.left, pruned: row.pruned };
  }

  /** Five columns of every row, no more (all() of 100,000 rows takes a second). */
  async statsRows(): Promise<StatsSignup[]> {
    return this.db
      .prepare(
        `SELECT created_at AS createdAt, utm_source AS utmSource, utm_campaign AS utmCampaign, ref,
                confirmed_at AS confirmedAt
         FROM signups`,
      )
      .all() as StatsSignup[];
  }

  async count(): Promise<number> {
    return (this.db.prepare("SELECT count(*) AS n FROM signups").get() as { n: number }).n;
  }

  async all(): Promise<Signup[]> {
    return this.db
      .prepare(
        `SELECT email, email_key AS emailKey, created_at AS createdAt, source,
                confirmation_sent_at AS confirmationSentAt, confirmation_failed_at AS confirmationFailedAt,
                confirmation_error AS confirmationError, confirmation_capped AS confirmationCapped,
                utm_source AS utmSource, utm_medium AS utmMedium, utm_campaign AS utmCampaign,
                utm_content AS utmContent, utm_term AS utmTerm, ref, landing_path AS landingPath,
                confirmed_at AS confirmedAt, privacy_policy_at_signup AS privacyPolicyAtSignup,
                privacy_policy_at_confirm AS privacyPolicyAtConfirm, opt_in_since AS optInSince,
                consent_at_signup AS consentAtSignup, consent_at_confirm AS consentAtConfirm
         FROM signups ORDER BY created_at, id`,
      )
      .all()
      .map((row) => ({
        ...(row as Signup),
        confirmationCapped: (row as { confirmationCapped: number }).confirmationCapped === 1,
      }));
  }

  pragma(name: string): unknown {
    return this.db.pragma(name, { simple: true });
  }

  integrityCheck(): string {
    return String(this.db.pragma("integrity_check", { simple: true }));
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
