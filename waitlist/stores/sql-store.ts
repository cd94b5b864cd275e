import type { Departure, DepartureKind, ListedSignup, ListRow, NewSignup, SignupRecord } from "../signup-life/types";
import type { MailCounts, MailDay, OwedConfirmation, RemovedSignup } from "../signup-life/types";
import type { DepartureCounts, LetInSignup, SuppressionReason, UnconfirmedSignup } from "../signup-life/types";
import type { UndeliverableSignup } from "../signup-life/types";
import * as life from "../signup-life/signup-life";
import { recordKeeper, RecentWrites, type RecordKeeper } from "./record-keeper";
import type { FullStore, StoreSecretName } from "./store";
import {
  column,
  dueSql,
  fields,
  keepsDigestSql,
  memberSql,
  owedColumns,
  owedSql,
  readRecord,
  recordOf,
} from "./sql-rows";
import { select, unconfirmedSql, valuesOf, type Row } from "./sql-rows";

/*
 * The waitlist in the SQL both SQLite (sqlite-store.ts) and Postgres (postgres-store.ts) speak, $1…$n for parameters,
 * instants as ISO text. A record changes by a transition of signup-life (record-keeper.ts): read, then written back
 * by compare-and-swap on its version. A signup and a leave are one statement each; the sweep and the retention read
 * through partial indexes, so their work grows with what is owed or expired, never with the list. What the two say
 * differently is behind SqlDatabase.
 */

/** A value a statement takes: instants as ISO text, booleans as they are (SQLite's driver writes 1 and 0). */
export type SqlValue = string | number | boolean | null;

/** What the SQL store needs of a database. */
export interface SqlDatabase {
  /** Runs one statement; resolves with its rows, instants as ISO text (UTC, milliseconds). */
  query<T>(sql: string, values?: readonly SqlValue[]): Promise<T[]>;
  /** A `DELETE … RETURNING`, each row counted as `departure` (its digest only with a row that says `"keepsDigest"`). */
  deleteCounted<T>(deleteSql: string, values: readonly SqlValue[], departure: Departure): Promise<T[]>;
  close(): Promise<void>;
}

/** No LIMIT: a number both databases take. */
const unlimited = (limit: number) => (Number.isFinite(limit) ? limit : Number.MAX_SAFE_INTEGER);
const iso = (at: Date) => at.toISOString();
/** What removeAt resolves with: each address and its signup time, and the fields named after its `still`. */
type Gone = { email: string; createdAt: string };
type Also = [at: Date, still?: string, ...also: (keyof SignupRecord)[]];
/** A day's mail figures, in mail_days' columns. */
const mailCounts = ["sent", "throttled", "bounced", "complained"] as const satisfies readonly (keyof MailCounts)[];

export class SqlStore implements FullStore {
  private readonly recent = new RecentWrites<number>();
  private readonly keeper: RecordKeeper;

  constructor(protected readonly db: SqlDatabase) {
    this.keeper = recordKeeper<SignupRecord>({
      change: (emailKey, transition) => this.change(emailKey, transition),
      records: () => this.records(),
      record: async (emailKey) => {
        const row = await this.row<Row>(readRecord, [emailKey]);
        if (!row) return undefined;
        const { version: _version, ...record } = row;
        return recordOf(record);
      },
    });
  }

  // A signup's transitions and the founders' whole-list figures, as every store has them (record-keeper.ts).
  claimConfirmation: RecordKeeper["claimConfirmation"] = (...args) => this.keeper.claimConfirmation(...args);
  confirm: RecordKeeper["confirm"] = (...args) => this.keeper.confirm(...args);
  askToConfirm: RecordKeeper["askToConfirm"] = (...args) => this.keeper.askToConfirm(...args);
  markConfirmationSent: RecordKeeper["markConfirmationSent"] = (...args) => this.keeper.markConfirmationSent(...args);
  releaseConfirmation: RecordKeeper["releaseConfirmation"] = (...args) => this.keeper.releaseConfirmation(...args);
  failConfirmation: RecordKeeper["failConfirmation"] = (...args) => this.keeper.failConfirmation(...args);
  noteAnnouncement: RecordKeeper["noteAnnouncement"] = (...args) => this.keeper.noteAnnouncement(...args);
  letIn: RecordKeeper["letIn"] = (...args) => this.keeper.letIn(...args);
  letInMail: RecordKeeper["letInMail"] = (...args) => this.keeper.letInMail(...args);
  objectTo: RecordKeeper["objectTo"] = (...args) => this.keeper.objectTo(...args);
  restrict: RecordKeeper["restrict"] = (...args) => this.keeper.restrict(...args);
  markBounced: RecordKeeper["markBounced"] = (...args) => this.keeper.markBounced(...args);
  signup: RecordKeeper["signup"] = (emailKey) => this.keeper.signup(emailKey);
  all: RecordKeeper["all"] = () => this.keeper.all();
  confirmationCounts: RecordKeeper["confirmationCounts"] = () => this.keeper.confirmationCounts();
  failedConfirmations: RecordKeeper["failedConfirmations"] = () => this.keeper.failedConfirmations();
  lastConfirmationError: RecordKeeper["lastConfirmationError"] = () => this.keeper.lastConfirmationError();

  private async row<T>(sql: string, values: readonly SqlValue[] = []): Promise<T | undefined> {
    return (await this.db.query<T>(sql, values))[0];
  }

  /** One statement: a new record, or a listed one's repeat counted (as long a write: no timing tells it was listed). */
  async add(entry: NewSignup): Promise<{ added: boolean; createdAt: string }> {
    const record = life.add(entry, entry.at ?? new Date(), { inviterKnown: true });
    const values = fields.map((name, n) =>
      name === "invitedBy" ? `(SELECT invite_code FROM signups WHERE invite_code = $${n + 1})` : `$${n + 1}`,
    );
    const row = await this.row<{ repeats: number; invitedBy: string | null }>(
      `INSERT INTO signups (${fields.map(column).join(", ")}) VALUES (${values.join(", ")})
       ON CONFLICT (email_key) DO UPDATE SET repeat_signups = signups.repeat_signups + 1, version = signups.version + 1
       RETURNING repeat_signups AS "repeats", invited_by AS "invitedBy"`,
      valuesOf(record),
    );
    const added = row!.repeats === 0;
    this.recent.set(entry.emailKey, added ? { ...record, invitedBy: row!.invitedBy } : undefined, 0);
    return { added, createdAt: record.createdAt };
  }

  /** The row read (unless this store wrote it in the last minute), then written back if nobody wrote it since. */
  private async change(emailKey: string, transition: (record: SignupRecord) => SignupRecord | undefined) {
    for (let known = this.recent.get(emailKey); ; known = undefined) {
      const row = known ? undefined : await this.row<Row>(readRecord, [emailKey]);
      const found = known ?? (row && { record: recordOf(row), version: row.version as number });
      const next = found && transition(found.record);
      if (!next && known) continue; // What this store wrote may have changed since: read.
      if (!next) return undefined;
      const set = fields.map((name, n) => `${column(name)} = $${n + 3}`).join(", ");
      const written = await this.db.query(
        // And its created_at: a new signup of the address, after a leave, starts at the same version.
        `UPDATE signups SET ${set}, version = version + 1
         WHERE email_key = $1 AND version = $2 AND created_at = $${fields.indexOf("createdAt") + 3} RETURNING version`,
        [emailKey, found.version, ...valuesOf(next)],
      );
      this.recent.set(emailKey, written.length === 1 ? next : undefined, found.version + 1);
      if (written.length === 1) return next;
    }
  }

  /**
   * One statement: the row, and its confirmed invitees as signup-life's countsAsInvite counts them, one per mailbox
   * (none who left: their rows are gone), through the invited_by index.
   */
  async lookup(emailKey: string): Promise<ListedSignup | undefined> {
    return this.row(
      `SELECT ${select("email", "createdAt", "confirmedAt", "inviteCode")},
         (SELECT CAST(count(DISTINCT i.mailbox_digest) AS integer) FROM signups i WHERE i.invited_by = s.invite_code
            AND ${memberSql("i.")} AND i.restricted_at IS NULL AND i.mailbox_digest IS DISTINCT FROM s.mailbox_digest)
            AS "confirmedInvites"
       FROM signups s WHERE email_key = $1`,
      [emailKey],
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
    await this.db.query("DELETE FROM mailbox_mail WHERE day < $1", [day]);
  }

  async pendingConfirmations(): Promise<OwedConfirmation[]> {
    return this.dueConfirmations(undefined, Infinity);
  }

  /** isDue at `now`, through the index of those owed; without `now`, every one owed. */
  async dueConfirmations(now: Date | undefined, limit: number): Promise<OwedConfirmation[]> {
    return this.db.query(
      `SELECT ${owedColumns} FROM signups WHERE ${owedSql} ${now ? `AND ${dueSql}` : ""} ORDER BY created_at, id LIMIT $1`,
      now ? [unlimited(limit), iso(now)] : [unlimited(limit)],
    );
  }

  /** expired at `before`, through the index of those unconfirmed. */
  async expiredUnconfirmed(before: Date, limit: number): Promise<UnconfirmedSignup[]> {
    return this.db.query(
      `SELECT ${select("email", "emailKey", "createdAt", "optInSince")} FROM signups
       WHERE ${unconfirmedSql} AND opt_in_since IS NOT NULL AND opt_in_since < $1 AND restricted_at IS NULL
       ORDER BY opt_in_since, id LIMIT $2`,
      [iso(before), unlimited(limit)],
    );
  }

  /** SQL keeps no bookkeeping of its own to tidy. */
  expiredUnconfirmedTidying(before: Date, limit: number): Promise<UnconfirmedSignup[]> {
    return this.expiredUnconfirmed(before, limit);
  }

  async removeUnconfirmed(signups: readonly UnconfirmedSignup[], at: Date): Promise<RemovedSignup[]> {
    const found = signups.map((one): [string, string] => [one.emailKey, one.optInSince]);
    const still = `${unconfirmedSql} AND`;
    const removed = await this.removeAt<RemovedSignup>(found, "opt_in_since", "pruned", at, still, "optInSince");
    // In the order they were found: those asked first first.
    return removed.sort((a, b) => a.optInSince.localeCompare(b.optInSince));
  }

  /** pastItsWave at `before`, through the index of those let in. */
  async pastItsWave(before: Date, limit: number): Promise<LetInSignup[]> {
    return this.db.query(
      `SELECT ${select("email", "emailKey", "createdAt", "letInAt")} FROM signups
       WHERE wave IS NOT NULL AND let_in_at < $1 AND restricted_at IS NULL ORDER BY let_in_at, id LIMIT $2`,
      [iso(before), unlimited(limit)],
    );
  }

  removeAfterWave(signups: readonly LetInSignup[], at: Date) {
    const found = signups.map((one): [string, string] => [one.emailKey, one.letInAt]);
    return this.removeAt(found, "let_in_at", "after-wave", at);
  }

  /** pastUndeliverable at `before`, through the index signups_undeliverable. */
  async undeliverableBefore(before: Date, limit: number): Promise<UndeliverableSignup[]> {
    return this.db.query(
      `SELECT ${select("email", "emailKey", "createdAt")}, confirmation_failed_at AS "bouncedAt" FROM signups WHERE
       state = 'undeliverable' AND confirmation_failed_at < $1 AND restricted_at IS NULL ORDER BY 4, id LIMIT $2`,
      [iso(before), unlimited(limit)],
    );
  }

  removeUndeliverable(signups: readonly UndeliverableSignup[], at: Date) {
    const found = signups.map((one): [string, string] => [one.emailKey, one.bouncedAt]);
    return this.removeAt(found, "confirmation_failed_at", "undeliverable", at, "state = 'undeliverable' AND");
  }

  /** Deletes each key's row still at its time in `column`, `still` so, not restricted since: a departure `how` each. */
  private async removeAt<T = Gone>(found: [string, string][], column: string, how: DepartureKind, ...rest: Also) {
    const [at, still = "", ...also] = rest;
    if (found.length === 0) return [];
    for (const [emailKey] of found) this.recent.forget(emailKey);
    const pairs = found.map((_, n) => `(email_key = $${2 * n + 1} AND ${column} = $${2 * n + 2})`);
    return this.db.deleteCounted<T>(
      `DELETE FROM signups WHERE ${still} restricted_at IS NULL AND (${pairs.join(" OR ")})
       RETURNING ${select("email", "createdAt", ...also)}`,
      found.flat(),
      { how, at: iso(at) },
    );
  }

  /** A secret the store keeps (store.ts); the first one made wins. Read first: it exists. */
  async secret(name: StoreSecretName, make: () => string): Promise<string> {
    const key = `${name}_secret`;
    const read = () => this.row<{ value: string }>("SELECT value FROM settings WHERE name = $1", [key]);
    const found = await read();
    if (found) return found.value;
    await this.db.query("INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING", [key, make()]);
    return (await read())!.value;
  }

  /** The row goes and the departure is counted, or neither. */
  async remove(emailKey: string, how: DepartureKind, at: Date, digest?: string) {
    this.recent.forget(emailKey);
    const [removed] = await this.db.deleteCounted<{ email: string; createdAt: string }>(
      `DELETE FROM signups WHERE email_key = $1 RETURNING ${select("email", "createdAt")}, ${keepsDigestSql}`,
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

  async departureCounts(between?: { from: Date; to: Date }): Promise<DepartureCounts> {
    const within = between ? "left_at >= $1 AND left_at < $2" : "TRUE";
    const counted = (name: string, where: string) => `CAST(count(*) FILTER (WHERE ${where}) AS integer) AS "${name}"`;
    return (await this.row<DepartureCounts>(
      // As a number in both databases (Postgres's count is a bigint, which pg hands over as text).
      `SELECT ${counted("left", "how NOT IN ('pruned', 'after-wave')")}, ${counted("pruned", "how = 'pruned'")},
              ${counted("afterWave", "how = 'after-wave'")} FROM departures WHERE ${within}`,
      between ? [iso(between.from), iso(between.to)] : [],
    ))!;
  }

  /**
   * A later time wins; both databases read `excluded` as the row that was not inserted. An address held alone has a
   * row of its own, under its fingerprint: the two are read by their keys at once.
   */
  async suppress(mailbox: string, until: Date, why: SuppressionReason, address?: string): Promise<void> {
    const fingerprint = address ?? mailbox;
    const later = "excluded.until > suppressions.until";
    await this.db.query(
      `INSERT INTO suppressions (fingerprint, until, why) VALUES ($1, $2, $3) ON CONFLICT (fingerprint) DO UPDATE
       SET until = CASE WHEN ${later} THEN excluded.until ELSE suppressions.until END,
           why = CASE WHEN ${later} THEN excluded.why ELSE suppressions.why END`,
      [fingerprint, iso(until), why],
    );
  }

  async suppressedUntil(mailbox: string, at: Date, address?: string): Promise<string | undefined> {
    const row = await this.row<{ until: string | null }>(
      "SELECT MAX(until) AS until FROM suppressions WHERE fingerprint IN ($1, $2) AND until > $3",
      [mailbox, address ?? mailbox, iso(at)],
    );
    return row?.until ?? undefined;
  }

  async forgetSuppressionsBefore(before: Date): Promise<void> {
    await this.db.query("DELETE FROM suppressions WHERE until < $1", [iso(before)]);
  }

  async countMail(day: string, counts: Partial<MailCounts>): Promise<void> {
    const add = mailCounts.map((name) => counts[name] ?? 0);
    await this.db.query(
      `INSERT INTO mail_days (day, ${mailCounts.join(", ")}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (day) DO UPDATE
       SET ${mailCounts.map((name) => `${name} = mail_days.${name} + excluded.${name}`).join(", ")}`,
      [day, ...add],
    );
  }

  mailDays(from: string): Promise<MailDay[]> {
    return this.db.query(`SELECT day, ${mailCounts.join(", ")} FROM mail_days WHERE day >= $1 ORDER BY day`, [from]);
  }

  /** The settings row, read and written back only if its value is still the one read. */
  async swapSetting<T>(name: string, change: (current: T | undefined) => T | undefined): Promise<T | undefined> {
    for (;;) {
      const found = await this.row<{ value: string }>("SELECT value FROM settings WHERE name = $1", [name]);
      const next = change(found && (JSON.parse(found.value) as T));
      if (next === undefined) return undefined;
      const written = found
        ? await this.db.query("UPDATE settings SET value = $2 WHERE name = $1 AND value = $3 RETURNING name", [
            name,
            JSON.stringify(next),
            found.value,
          ])
        : await this.db.query(
            "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING name",
            [name, JSON.stringify(next)],
          );
      if (written.length === 1) return next;
    }
  }

  async readSetting<T>(name: string): Promise<T | undefined> {
    const found = await this.row<{ value: string }>("SELECT value FROM settings WHERE name = $1", [name]);
    return found && (JSON.parse(found.value) as T);
  }

  async once(name: string): Promise<boolean> {
    const insert = "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING name";
    return (await this.db.query(insert, [`once ${name}`, iso(new Date())])).length === 1;
  }

  async forgetOnce(name: string): Promise<void> {
    await this.db.query("DELETE FROM settings WHERE name = $1", [`once ${name}`]);
  }

  /** A note's value is when it was made (once); substr, not LIKE, so that no character of the prefix is a pattern. */
  async forgetOnceBefore(prefix: string, before: Date): Promise<void> {
    const named = `once ${prefix}`;
    await this.db.query("DELETE FROM settings WHERE substr(name, 1, length($1)) = $1 AND value < $2", [
      named,
      iso(before),
    ]);
  }

  /** The rows of the founders' figures, and no more (all() of 100,000 rows takes a second). */
  async listRows(): Promise<ListRow[]> {
    return this.db.query(
      `SELECT ${select("createdAt", "utmSource", "utmCampaign", "ref", "state", "confirmedAt", "inviteCode")},
         ${select("invitedBy", "mailboxDigest", "wave", "letInAt", "letInMail", "rankingObjectedAt", "optInSince")},
         ${select("restrictedAt")} FROM signups`,
    );
  }

  async count(): Promise<number> {
    return (await this.row<{ n: number }>(`SELECT CAST(count(*) AS integer) AS "n" FROM signups`))!.n;
  }

  async departures(): Promise<number> {
    const { left, pruned, afterWave } = await this.departureCounts();
    return left + pruned + afterWave;
  }

  private async records(): Promise<SignupRecord[]> {
    const rows = await this.db.query<Record<keyof SignupRecord, unknown>>(
      `SELECT ${select(...fields)} FROM signups ORDER BY created_at, id`,
    );
    return rows.map(recordOf);
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
