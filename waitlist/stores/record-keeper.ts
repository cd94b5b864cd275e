import { newInviteCode } from "../invites";
import * as life from "../signup-life/signup-life";
import type { SignupRecord } from "../signup-life/signup-life";
import type { StatsSignup } from "../reports/stats";
import * as figures from "../signup-life/figures";
import type {
  Confirmation,
  ConfirmationCounts,
  OwedConfirmation,
  Signup,
  WaitlistLedger,
  WaitlistStore,
} from "./store";

/** How long a store trusts the record it last wrote of an address: a signup's e-mail goes within seconds of it. */
const trustMs = 60_000;

/**
 * The records a store wrote in the last minute, with the version its compare-and-swap compares: the next change of
 * one (a claim, then its e-mail sent) needs no read. A stale one only costs the read it would have made.
 */
export class RecentWrites<Version> {
  private readonly kept = new Map<string, { record: SignupRecord; version: Version; at: number }>();

  get(emailKey: string) {
    const one = this.kept.get(emailKey);
    return one && Date.now() - one.at <= trustMs ? one : undefined;
  }

  /** Keeps what was written of `emailKey`; none (a write refused), forgets it. */
  set(emailKey: string, record: SignupRecord | undefined, version: Version): void {
    this.kept.delete(emailKey);
    if (record) this.kept.set(emailKey, { record, version, at: Date.now() });
    for (const [key, one] of this.kept) {
      if (Date.now() - one.at <= trustMs) break;
      this.kept.delete(key);
    }
  }

  forget(emailKey: string): void {
    this.kept.delete(emailKey);
  }
}

/*
 * What every store does to one signup's record, said once: each method of the request path is a transition of
 * signup-life applied to the record of one address by the store's own change() (read by key, written back by
 * compare-and-swap). SqlStore and BlobsStore extend this; each keeps its records its own way.
 */
export abstract class RecordKeeper<Kept extends SignupRecord> implements Partial<WaitlistStore & WaitlistLedger> {
  /** The record of `emailKey` through `transition`, kept; undefined when it is not listed or nothing changed. */
  protected abstract change(
    emailKey: string,
    transition: (record: Kept) => Kept | undefined,
  ): Promise<Kept | undefined>;

  /** Every record, oldest first: a whole-list read, for the founders' commands only. */
  protected abstract records(): Promise<SignupRecord[]>;

  /** The store's own bookkeeping, for the scheduled runs (store.ts, ConfirmationQueue.fold): none by default. */
  async fold(_options?: { deadline?: number; tidy?: boolean }): Promise<number> {
    return 0;
  }

  /** After a confirm, first or not: what else the store files of a confirmed record (Blobs: its invite keys). */
  protected async confirmed(_emailKey: string, _record: Kept): Promise<void> {}

  async claimConfirmation(emailKey: string, { now, leaseMs }: { now: Date; leaseMs: number }) {
    return (await this.change(emailKey, (record) => life.claim(record, now, leaseMs)))?.confirmationAttempts;
  }

  /** The first confirmation is kept: a second press reads the record and writes nothing. */
  async confirm(emailKey: string, { inviteCode = newInviteCode(), ...confirmation }: Confirmation) {
    let found: { record: Kept; first: boolean } | undefined;
    await this.change(emailKey, (record) => {
      found = life.confirm(record, { ...confirmation, inviteCode });
      return found?.first ? found.record : undefined;
    });
    if (!found) return undefined;
    await this.confirmed(emailKey, found.record);
    return { confirmedAt: found.record.confirmedAt!, first: found.first, inviteCode: found.record.inviteCode! };
  }

  async askToConfirm(emailKey: string, at: Date, options?: { resendAfterMs?: number }) {
    const asked = await this.change(emailKey, (record) => life.ask(record, at, options));
    return asked && (life.owedOf(asked) satisfies OwedConfirmation);
  }

  async markConfirmationSent(emailKey: string, at: Date): Promise<void> {
    await this.change(emailKey, (record) => life.sent(record, at));
  }

  async releaseConfirmation(emailKey: string, error: string, retryAt: Date): Promise<void> {
    await this.change(emailKey, (record) => life.release(record, error, retryAt));
  }

  async failConfirmation(emailKey: string, error: string, at: Date, { capped = false } = {}): Promise<void> {
    await this.change(emailKey, (record) => life.fail(record, error, at, capped));
  }

  /** Noted in the record, so a leave takes it; of two runs at once, one takes the person. */
  async noteAnnouncement(emailKey: string, id: string, { undo = false }: { undo?: boolean } = {}): Promise<boolean> {
    life.checkAnnouncementId(id);
    return (await this.change(emailKey, (record) => life.announce(record, id, undo))) !== undefined;
  }

  async letIn(emailKey: string, wave: { wave: number; at: Date; createdAt: string; mail: boolean }) {
    return (await this.change(emailKey, (record) => life.letIn(record, wave))) !== undefined;
  }

  async letInMail(emailKey: string, step: life.LetInMailStep, wave: number): Promise<boolean> {
    return (await this.change(emailKey, (record) => life.letInMailStep(record, step, wave))) !== undefined;
  }

  async objectToRanking(emailKey: string, at: Date): Promise<string | undefined> {
    let noted: string | undefined;
    await this.change(emailKey, (record) => {
      const next = life.objectToRanking(record, at);
      noted = (next ?? record).rankingObjectedAt!;
      return next;
    });
    return noted;
  }

  // The founders' reads of the whole list, counted as signup-life's figures count them.

  async all(): Promise<Signup[]> {
    return (await this.records()).map(life.signupOf);
  }

  async count(): Promise<number> {
    return (await this.records()).length;
  }

  async statsRows(): Promise<StatsSignup[]> {
    return (await this.records()).map(figures.statsRowOf);
  }

  async confirmationCounts(): Promise<ConfirmationCounts> {
    return figures.confirmationCounts(await this.records());
  }

  async failedConfirmations() {
    return figures.failedConfirmations(await this.records());
  }

  async departures(): Promise<number> {
    const { left, pruned } = await this.departureCounts();
    return left + pruned;
  }

  abstract departureCounts(between?: { from: Date; to: Date }): Promise<{ left: number; pruned: number }>;

  async lastConfirmationError(): Promise<string | undefined> {
    return figures.lastConfirmationError(await this.records());
  }
}
