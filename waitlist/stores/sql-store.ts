import type { StatsSignup } from "../reports/stats";
import * as life from "../signup-life/signup-life";
import type { Departure, SignupRecord } from "../signup-life/signup-life";
import { RecentWrites, RecordKeeper } from "./record-keeper";
import type { DepartureKind, FullStore, ListedSignup, NewSignup } from "./store";
import type { OwedConfirmation, RemovedSignup, UnconfirmedSignup } from "./store";

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
  /** A `DELETE … RETURNING`, each row counted as `departure` (its digest only with a row that says `"confirmed"`). */
  deleteCounted<T>(deleteSql: string, values: readonly SqlValue[], departure: Departure): Promise<T[]>;
  close(): Promise<void>;
}

/** Every field of a record; its column is that name in snake_case. */
const fields = [
  ...["email", "emailKey", "createdAt", "source", "utmSource", "utmMedium", "utmCampaign", "utmContent", "utmTerm"],
  ...["ref", "landingPath", "repeatSignups", "confirmationSentAt", "confirmationAttempts", "confirmationClaimedUntil"],
  ...["confirmationNextAt", "confirmationFailedAt", "confirmationError", "confirmationCapped", "confirmedAt"],
  ...["privacyPolicyAtSignup", "privacyPolicyAtConfirm", "consentAtSignup", "consentAtConfirm", "optInSince"],
  ...["askedAt", "inviteCode", "invitedBy", "mailbox", "announcements", "wave", "letInAt", "letInMail"],
  ...["rankingObjectedAt"],
] as const satisfies readonly (keyof SignupRecord)[];
const column = (name: keyof SignupRecord) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
/** `column AS "name"` for each name: both databases fold an unquoted alias to lower case. */
const select = (...names: (keyof SignupRecord)[]) => names.map((name) => `${column(name)} AS "${name}"`).join(", ");
type Row = Record<keyof SignupRecord | "version", unknown>;
const readRecord = `SELECT ${select(...fields)}, version FROM signups WHERE email_key = $1`;
/** A record as read: SQLite's 0 and 1 as a boolean, the announcements (`,id,id,`) as a list. */
const recordOf = (row: Record<keyof SignupRecord, unknown>): SignupRecord => {
  const announcements = `${(row.announcements as string | null) ?? ""}`.split(",").filter(Boolean);
  return { ...row, confirmationCapped: Boolean(row.confirmationCapped), announcements } as SignupRecord;
};
/** A record's fields as a statement takes them, in the order of `fields`; the announcements as `,id,id,`. */
const valuesOf = (record: SignupRecord) =>
  fields.map((name) => (name === "announcements" ? `,${record.announcements.join(",")},` : record[name]));
/** An owed confirmation: its asking under way (a repeat signup's asked_at), or the first. */
const owedColumns = `${select("email", "emailKey", "createdAt")}, coalesce(asked_at, opt_in_since) AS "optInSince"`;
/** Still owed: neither sent nor refused for good (the index signups_confirmation_owed). */
const owed = "confirmation_sent_at IS NULL AND confirmation_failed_at IS NULL";
/** No LIMIT: a number both databases take. */
const unlimited = (limit: number) => (Number.isFinite(limit) ? limit : Number.MAX_SAFE_INTEGER);
const iso = (at: Date) => at.toISOString();

export class SqlStore extends RecordKeeper<SignupRecord> implements FullStore {
  private readonly recent = new RecentWrites<number>();

  constructor(protected readonly db: SqlDatabase) {
    super();
  }

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
  protected async change(emailKey: string, transition: (record: SignupRecord) => SignupRecord | undefined) {
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
   * One statement: the row, and its confirmed invitees as signup-life's credits() counts them (one per mailbox, never
   * its own, none who left: their rows are gone), through the invited_by index.
   */
  async lookup(emailKey: string): Promise<ListedSignup | undefined> {
    return this.row(
      `SELECT ${select("email", "createdAt", "confirmedAt", "inviteCode")},
         (SELECT CAST(count(DISTINCT i.mailbox) AS integer) FROM signups i WHERE i.invited_by = s.invite_code
            AND i.confirmed_at IS NOT NULL AND i.mailbox IS DISTINCT FROM s.mailbox) AS "confirmedInvites"
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

  /** Due at `now`: nobody holds it, and any retry is due; without `now`, every one owed. */
  async dueConfirmations(now: Date | undefined, limit: number): Promise<OwedConfirmation[]> {
    const due = `AND (confirmation_claimed_until IS NULL OR confirmation_claimed_until < $2)
                 AND (confirmation_next_at IS NULL OR confirmation_next_at <= $2)`;
    return this.db.query(
      `SELECT ${owedColumns} FROM signups WHERE ${owed} ${now ? due : ""} ORDER BY created_at, id LIMIT $1`,
      now ? [unlimited(limit), iso(now)] : [unlimited(limit)],
    );
  }

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
    for (const { emailKey } of signups) this.recent.forget(emailKey);
    const pairs = signups.map((_, n) => `(email_key = $${2 * n + 1} AND opt_in_since = $${2 * n + 2})`);
    const removed = await this.db.deleteCounted<RemovedSignup>(
      `DELETE FROM signups WHERE confirmed_at IS NULL AND (${pairs.join(" OR ")})
       RETURNING ${select("email", "createdAt", "optInSince")}`,
      signups.flatMap((one) => [one.emailKey, one.optInSince]),
      { how: "pruned", at: iso(at) },
    );
    // In the order they were found: those asked first first.
    return removed.sort((a, b) => a.optInSince.localeCompare(b.optInSince));
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
    this.recent.forget(emailKey);
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

  async departureCounts(between?: { from: Date; to: Date }): Promise<{ left: number; pruned: number }> {
    const within = between ? "left_at >= $1 AND left_at < $2" : "TRUE";
    return (await this.row<{ left: number; pruned: number }>(
      // As a number in both databases (Postgres's count is a bigint, which pg hands over as text).
      `SELECT CAST(count(*) FILTER (WHERE how <> 'pruned') AS integer) AS "left",
              CAST(count(*) FILTER (WHERE how = 'pruned') AS integer) AS "pruned" FROM departures WHERE ${within}`,
      between ? [iso(between.from), iso(between.to)] : [],
    ))!;
  }

  async once(name: string): Promise<boolean> {
    const insert = "INSERT INTO settings (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING name";
    return (await this.db.query(insert, [`once ${name}`, iso(new Date())])).length === 1;
  }

  /** What stats needs of every row, and no more (all() of 100,000 rows takes a second). */
  override async statsRows(): Promise<StatsSignup[]> {
    return this.db.query(
      `SELECT ${select("createdAt", "utmSource", "utmCampaign", "ref", "confirmedAt", "inviteCode", "invitedBy", "mailbox")},
         ${select("wave", "letInAt", "letInMail")} FROM signups`,
    );
  }

  protected async records(): Promise<SignupRecord[]> {
    const rows = await this.db.query<Record<keyof SignupRecord, unknown>>(
      `SELECT ${select(...fields)} FROM signups ORDER BY created_at, id`,
    );
    return rows.map(recordOf);
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}
