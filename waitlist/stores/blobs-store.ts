import type { Store } from "@netlify/blobs";
import type { StatsSignup } from "../reports/stats";
import { FoundersReads } from "./blobs/founders";
import { Ledger, rowsPerChunk } from "./blobs/ledger";
import { Queue } from "./blobs/queue";
import { Records } from "./blobs/records";
import { RequestPath } from "./blobs/request-path";
import { Secrets } from "./blobs/secrets";
import type {
  Confirmation,
  ConfirmationCounts,
  DepartureKind,
  FullStore,
  ListedSignup,
  NewSignup,
  OwedConfirmation,
  RemovedSignup,
  Signup,
  UnconfirmedSignup,
} from "./store";

export { BlobsStoreError, blobsStoreName, hashOf } from "./blobs/records";
export { rowsPerChunk } from "./blobs/ledger";

/*
 * The waitlist on Netlify, in Netlify Blobs: one store made of parts in
 * blobs/, by what they cost. The blobs' layout is in blobs/records.ts.
 *
 *   request-path.ts  a signup, a confirm, a leave, one confirmation sent: by key
 *   queue.ts         the sweep's and the retention's work: the backlogs
 *   ledger.ts        the sweep's bookkeeping: the list in blobs of a thousand rows
 *   founders.ts      the founders' commands: whole-list reads
 *   secrets.ts       the secrets the store keeps
 */
export class BlobsStore implements FullStore {
  private readonly requests: RequestPath;
  private readonly queue: Queue;
  private readonly ledger: Ledger;
  private readonly founders: FoundersReads;
  private readonly secrets: Secrets;
  private readonly records: Records;

  constructor(
    blobs: Store,
    { clock = () => new Date(), chunkRows = rowsPerChunk }: { clock?: () => Date; chunkRows?: number } = {},
  ) {
    const records = new Records(blobs, clock);
    this.records = records;
    this.ledger = new Ledger(records, chunkRows);
    this.requests = new RequestPath(records, this.ledger);
    this.queue = new Queue(records, this.ledger);
    this.founders = new FoundersReads(records, this.ledger);
    this.secrets = new Secrets(blobs);
  }

  // The request path (WaitlistStore).

  add(entry: NewSignup): Promise<{ added: boolean; createdAt: string }> {
    return this.requests.add(entry);
  }

  claimConfirmation(emailKey: string, options: { now: Date; leaseMs: number }) {
    return this.requests.claimConfirmation(emailKey, options);
  }

  lookup(emailKey: string): Promise<ListedSignup | undefined> {
    return this.requests.lookup(emailKey);
  }

  confirm(emailKey: string, confirmation: Confirmation) {
    return this.requests.confirm(emailKey, confirmation);
  }

  askToConfirm(
    emailKey: string,
    at: Date,
    options?: { resendAfterMs?: number },
  ): Promise<OwedConfirmation | undefined> {
    return this.requests.askToConfirm(emailKey, at, options);
  }

  markConfirmationSent(emailKey: string, at: Date): Promise<void> {
    return this.requests.markConfirmationSent(emailKey, at);
  }

  releaseConfirmation(emailKey: string, error: string, retryAt: Date): Promise<void> {
    return this.requests.releaseConfirmation(emailKey, error, retryAt);
  }

  failConfirmation(emailKey: string, error: string, at: Date, options?: { capped?: boolean }): Promise<void> {
    return this.requests.failConfirmation(emailKey, error, at, options);
  }

  remove(emailKey: string, how: DepartureKind, at: Date, digest?: string) {
    return this.requests.remove(emailKey, how, at, digest);
  }

  countMailboxMail(counter: string, day: string): Promise<number> {
    return this.requests.countMailboxMail(counter, day);
  }

  secret(name: "leave", make: () => string): Promise<string> {
    return this.secrets.secret(name, make);
  }

  /** settings/once-<name>, written only if new: of instances racing, one write is made (Netlify's onlyIfNew). */
  once(name: string): Promise<boolean> {
    return this.records.writeIf(`settings/once-${name}`, new Date().toISOString(), { onlyIfNew: true });
  }

  noteAnnouncement(emailKey: string, id: string, options?: { undo?: boolean }): Promise<boolean> {
    return this.requests.noteAnnouncement(emailKey, id, options);
  }

  async close(): Promise<void> {}

  // The sweep and the retention (ConfirmationQueue), and the sweep's bookkeeping.

  dueConfirmations(now: Date, limit: number): Promise<OwedConfirmation[]> {
    return this.queue.dueConfirmations(now, limit);
  }

  pendingConfirmations(): Promise<OwedConfirmation[]> {
    return this.queue.pendingConfirmations();
  }

  expiredUnconfirmed(before: Date, limit: number, options?: { tidy?: boolean }): Promise<UnconfirmedSignup[]> {
    return this.queue.expiredUnconfirmed(before, limit, options);
  }

  removeUnconfirmed(signups: readonly UnconfirmedSignup[], at: Date): Promise<RemovedSignup[]> {
    return this.queue.removeUnconfirmed(signups, at);
  }

  forgetLeaverDigestsBefore(before: Date, options?: { deadline?: number }): Promise<void> {
    return this.queue.forgetLeaverDigestsBefore(before, options);
  }

  forgetMailboxMailBefore(day: string, options?: { deadline?: number }): Promise<void> {
    return this.queue.forgetMailboxMailBefore(day, options);
  }

  /** Files the backlog into the ledger (blobs/ledger.ts) until `deadline`; the sweep runs it after sending what was due. */
  fold(options?: { deadline?: number; tidy?: boolean }): Promise<number> {
    return this.ledger.fold(options);
  }

  // The founders' reads (WaitlistLedger), and the signer their commands check.

  count(): Promise<number> {
    return this.founders.count();
  }

  confirmationCounts(): Promise<ConfirmationCounts> {
    return this.founders.confirmationCounts();
  }

  failedConfirmations() {
    return this.founders.failedConfirmations();
  }

  lastConfirmationError(): Promise<string | undefined> {
    return this.founders.lastConfirmationError();
  }

  departures(): Promise<number> {
    return this.founders.departures();
  }

  leaverDigests(since: Date): Promise<{ digest: string; leftAt: string }[]> {
    return this.founders.leaverDigests(since);
  }

  departureCounts(between?: { from: Date; to: Date }): Promise<{ left: number; pruned: number }> {
    return this.founders.departureCounts(between);
  }

  statsRows(): Promise<StatsSignup[]> {
    return this.founders.statsRows();
  }

  all(): Promise<Signup[]> {
    return this.founders.all();
  }

  /** Notes which secret the functions sign links with (blobs/secrets.ts): a function does when it opens the waitlist. */
  noteSigner(configured: string | undefined): Promise<void> {
    return this.secrets.noteSigner(configured);
  }

  signerProblem(configured: string | undefined): Promise<string | undefined> {
    return this.secrets.signerProblem(configured);
  }
}
