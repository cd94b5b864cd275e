import pLimit from "p-limit";
import type { SignupRecord } from "../../signup-life/signup-life";
import type { WaitlistLedger } from "../store";
import { carryForward, upgraded } from "./earlier-layout";
import { ledgerRow } from "./ledger";
import { concurrency } from "./records";
import { RequestPath } from "./request-path";

/*
 * The founders' commands: whole-list reads. The list is the ledger's blobs (N/1000 gets) with the backlog's records
 * read afresh; the departures, one listing of their keys. No request path reaches these.
 */
export class FoundersReads extends RequestPath implements WaitlistLedger {
  /** Every row, oldest first: the ledger, with the records of noted addresses read afresh (not filed yet). */
  protected async records(): Promise<SignupRecord[]> {
    // Records of the earlier layout first, so each is read once, under its <k>.
    while ((await carryForward(this)) > 0);
    const limit = pLimit(concurrency);
    const byKey = new Map<string, SignupRecord>();
    for (const rows of await Promise.all((await this.chunks()).map((chunk) => limit(() => this.chunkRows(chunk))))) {
      for (const [k, row] of Object.entries(rows)) byKey.set(k, upgraded(row as unknown as Record<string, unknown>));
    }
    for (const { k, record } of await this.readNoted(await this.noteWalk())) {
      if (record && !record.leaving) byKey.set(k, ledgerRow(record));
      else byKey.delete(k);
    }
    return [...byKey.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** One listing, each key a day and a digest (leaverKey); the day is the departure's time kept. */
  async leaverDigests(since: Date): Promise<{ digest: string; leftAt: string }[]> {
    const from = since.toISOString().slice(0, 10);
    return (await this.blobs.list({ prefix: "leavers/" })).blobs
      .map(({ key }) => key.split("/"))
      .filter(([, day]) => day! >= from)
      .map(([, day, digest]) => ({ digest: digest!, leftAt: day! }))
      .sort((a, b) => a.leftAt.localeCompare(b.leftAt));
  }

  /** One listing: each key starts with its departure's time; one from before the how was in its key is read. */
  async departureCounts(between?: { from: Date; to: Date }): Promise<{ left: number; pruned: number }> {
    const counts = { left: 0, pruned: 0 };
    const [from, to] = between ? [between.from.toISOString(), between.to.toISOString()] : ["", "~"];
    for (const { key } of (await this.blobs.list({ prefix: "departures/" })).blobs) {
      const at = key.slice("departures/".length, "departures/".length + 24);
      if (at < from || at >= to) continue;
      let how = /^departures\/.{24}-([a-z-]+)-[0-9a-f]{8}$/.exec(key)?.[1];
      how ??= ((await this.blobs.get(key, { type: "json" })) as { how?: string } | null)?.how;
      counts[how === "pruned" ? "pruned" : "left"]++;
    }
    return counts;
  }
}
