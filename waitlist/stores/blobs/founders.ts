import pLimit from "p-limit";
import type { StatsSignup } from "../../reports/stats";
import type { ConfirmationCounts, Signup, WaitlistLedger } from "../store";
import { ledgerRow, type Ledger, type LedgerRow } from "./ledger";
import { concurrency, upgraded, type Records } from "./records";

/*
 * The founders' commands: whole-list reads. The list is the ledger's blobs
 * (N/1000 gets) with the backlog's records read afresh; the departures, one
 * listing of their keys. No request path reaches these.
 */

/** The public fields of a row, in the order the SQLite store gives them. */
function signupOf(row: LedgerRow): Signup {
  const { confirmationNextAt: _next, ...signup } = row;
  return signup;
}

export class FoundersReads implements WaitlistLedger {
  constructor(
    private readonly records: Records,
    private readonly ledger: Ledger,
  ) {}

  /**
   * Every row, oldest first: the ledger, with the records of noted
   * addresses read afresh (the sweep has not filed their latest state yet).
   */
  private async rows(): Promise<LedgerRow[]> {
    const limit = pLimit(concurrency);
    const byHash = new Map<string, LedgerRow>();
    const chunks = await Promise.all(
      (await this.ledger.chunks()).map((chunk) => limit(() => this.ledger.chunkRows(chunk))),
    );
    for (const rows of chunks) for (const [h, row] of Object.entries(rows)) byHash.set(h, upgraded(row));
    for (const { h, found } of await this.records.noted()) {
      if (found && !found.record.leaving) byHash.set(h, ledgerRow(found.record));
      else byHash.delete(h);
    }
    return [...byHash.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async count(): Promise<number> {
    return (await this.rows()).length;
  }

  async confirmationCounts(): Promise<ConfirmationCounts> {
    const counts = { sent: 0, pending: 0, failed: 0 };
    for (const row of await this.rows()) {
      if (row.confirmationSentAt !== null) counts.sent++;
      else if (row.confirmationFailedAt !== null) counts.failed++;
      else counts.pending++;
    }
    return counts;
  }

  async failedConfirmations() {
    return (await this.rows()).flatMap((row) =>
      row.confirmationFailedAt === null
        ? []
        : [{ email: row.email, failedAt: row.confirmationFailedAt, error: row.confirmationError ?? "" }],
    );
  }

  async lastConfirmationError(): Promise<string | undefined> {
    const failing = (await this.rows())
      .filter((row) => row.confirmationError !== null && row.confirmationSentAt === null)
      .map((row) => ({ error: row.confirmationError!, at: row.confirmationFailedAt ?? row.confirmationNextAt ?? "" }))
      .sort((a, b) => b.at.localeCompare(a.at));
    return failing[0]?.error;
  }

  async departures(): Promise<number> {
    return (await this.records.blobs.list({ prefix: "departures/" })).blobs.length;
  }

  /** One list of keys, each a day and a digest (records.ts's leaverKey); the day is the departure's time kept. */
  async leaverDigests(since: Date): Promise<{ digest: string; leftAt: string }[]> {
    const from = since.toISOString().slice(0, 10);
    return (await this.records.blobs.list({ prefix: "leavers/" })).blobs
      .map(({ key }) => key.split("/"))
      .filter(([, day]) => day! >= from)
      .map(([, day, digest]) => ({ digest: digest!, leftAt: day! }))
      .sort((a, b) => a.leftAt.localeCompare(b.leftAt));
  }

  /** One list of keys; only a departure from before the how was in its key is read, one get each. */
  async departureCounts(between?: { from: Date; to: Date }): Promise<{ left: number; pruned: number }> {
    const { blobs } = this.records;
    const counts = { left: 0, pruned: 0 };
    // Each key starts with its departure's time (records.ts), so a day's departures are a range of keys.
    const [from, to] = between ? [between.from.toISOString(), between.to.toISOString()] : ["", "~"];
    for (const { key } of (await blobs.list({ prefix: "departures/" })).blobs) {
      const at = key.slice("departures/".length, "departures/".length + 24);
      if (at < from || at >= to) continue;
      let how = /^departures\/.{24}-([a-z-]+)-[0-9a-f]{8}$/.exec(key)?.[1];
      if (how === undefined) how = ((await blobs.get(key, { type: "json" })) as { how?: string } | null)?.how;
      if (how === "pruned") counts.pruned++;
      else counts.left++;
    }
    return counts;
  }

  async statsRows(): Promise<StatsSignup[]> {
    return (await this.rows()).map(
      ({ createdAt, utmSource, utmCampaign, ref, confirmedAt, inviteCode, invitedBy, mailbox }) => ({
        createdAt,
        utmSource,
        utmCampaign,
        ref,
        confirmedAt,
        inviteCode: inviteCode ?? null,
        invitedBy: invitedBy ?? null,
        mailbox: mailbox ?? null,
      }),
    );
  }

  async all(): Promise<Signup[]> {
    return (await this.rows()).map(signupOf);
  }
}
