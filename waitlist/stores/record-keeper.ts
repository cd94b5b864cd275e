import { newInviteCode } from "../invites";
import { owedOf } from "../signup-life/rules";
import * as life from "../signup-life/signup-life";
import type { Confirmation, ObjectionKind, OwedConfirmation, SignupRecord } from "../signup-life/types";
import * as wholeList from "../signup-life/whole-list";

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

/** What a store gives the record keeper: a record changed by a transition, and the whole list for the founders. */
export interface Keeping<Kept extends SignupRecord> {
  /** The record of `emailKey` through `transition`, kept; undefined when it is not listed or nothing changed. */
  change(emailKey: string, transition: (record: Kept) => Kept | undefined): Promise<Kept | undefined>;
  /** Every record, oldest first: a whole-list read, for the founders' commands only. */
  records(): Promise<SignupRecord[]>;
  /** The listed record of `emailKey`, read by its key; undefined when it is not listed (or leaving). */
  record(emailKey: string): Promise<SignupRecord | undefined>;
  /** After a confirm, first or not: what else the store files of a confirmed record (Blobs: its invite keys). */
  confirmed?(emailKey: string, record: Kept): Promise<void>;
  /** After an objection or a restriction changed a record: what the store files of it anew (Blobs: its invite keys). */
  refiled?(emailKey: string, before: Kept, after: Kept): Promise<void>;
}

/*
 * What every store does to one signup's record, said once: each method of the request path is a transition of
 * signup-life applied to the record of one address by the store's own change() (read by key, written back by
 * compare-and-swap), and the founders' figures are counted from the whole list by signup-life's whole-list.ts. Each
 * store holds one and hands its methods on; it keeps its records its own way.
 */
export function recordKeeper<Kept extends SignupRecord>({
  change,
  records,
  record,
  confirmed,
  refiled,
}: Keeping<Kept>) {
  /**
   * A person's request carried out (an objection, a restriction): `transition` once, what `read` says of the record as
   * it then stands (as it was, when the request was carried out before), and the store's refiling of a changed one.
   * Undefined when the address is not listed.
   */
  async function request<T>(
    emailKey: string,
    transition: (record: Kept) => Kept | undefined,
    read: (record: Kept) => T,
  ): Promise<T | undefined> {
    let said: T | undefined;
    let before: Kept | undefined;
    const after = await change(emailKey, (record) => {
      before = record;
      const next = transition(record);
      said = read(next ?? record);
      return next;
    });
    if (after) await refiled?.(emailKey, before!, after);
    return said;
  }

  return {
    async claimConfirmation(emailKey: string, { now, leaseMs }: { now: Date; leaseMs: number }) {
      return (await change(emailKey, (record) => life.claim(record, now, leaseMs)))?.confirmationAttempts;
    },

    /** The first confirmation is kept: a second press reads the record and writes nothing. */
    async confirm(emailKey: string, { inviteCode = newInviteCode(), ...confirmation }: Confirmation) {
      let found: { record: Kept; first: boolean } | undefined;
      await change(emailKey, (record) => {
        found = life.confirm(record, { ...confirmation, inviteCode });
        return found?.first ? found.record : undefined;
      });
      if (!found) return undefined;
      await confirmed?.(emailKey, found.record);
      return { confirmedAt: found.record.confirmedAt!, first: found.first, inviteCode: found.record.inviteCode! };
    },

    async askToConfirm(emailKey: string, at: Date, options?: { resendAfterMs?: number }) {
      const asked = await change(emailKey, (record) => life.ask(record, at, options));
      return asked && (owedOf(asked) satisfies OwedConfirmation);
    },

    async markConfirmationSent(emailKey: string, at: Date): Promise<void> {
      await change(emailKey, (record) => life.sent(record, at));
    },

    async releaseConfirmation(emailKey: string, error: string, retryAt: Date, options?: { uncounted?: boolean }) {
      await change(emailKey, (record) => life.release(record, error, retryAt, options));
    },

    async failConfirmation(emailKey: string, error: string, at: Date, { capped = false } = {}): Promise<void> {
      await change(emailKey, (record) => life.fail(record, error, at, capped));
    },

    /** Noted in the record, so a leave takes it; of two runs at once, one takes the person. */
    async noteAnnouncement(emailKey: string, id: string, { undo = false }: { undo?: boolean } = {}) {
      life.checkAnnouncementId(id);
      return (await change(emailKey, (record) => life.announce(record, id, undo))) !== undefined;
    },

    async letIn(emailKey: string, wave: { wave: number; at: Date; createdAt: string; mail: boolean }) {
      return (await change(emailKey, (record) => life.letIn(record, wave))) !== undefined;
    },

    async letInMail(emailKey: string, step: life.LetInMailStep, wave: number): Promise<boolean> {
      return (await change(emailKey, (record) => life.letInMailStep(record, step, wave))) !== undefined;
    },

    async markBounced(emailKey: string, error: string, at: Date) {
      let state: SignupRecord["state"] | undefined;
      await change(emailKey, (record) => {
        const next = life.bounce(record, error, at);
        state = (next ?? record).state;
        return next;
      });
      return state;
    },

    /** Resolves with when the objection was noted (the first time), or undefined when the address is not listed. */
    objectTo: (emailKey: string, to: ObjectionKind, at: Date) =>
      request(
        emailKey,
        (record) => life.object(record, to, at),
        (record) => life.objectedAt(record, to)!,
      ),

    /** Resolves with when the restriction began (null: lifted), or undefined when the address is not listed. */
    restrict: (emailKey: string, at: Date | null) =>
      request(
        emailKey,
        (record) => life.restrict(record, at),
        ({ restrictedAt }) => ({ restrictedAt }),
      ),

    // The founders' reads: one signup by its key, and the whole list.
    signup: async (emailKey: string) => {
      const found = await record(emailKey);
      return found && life.signupOf(found);
    },
    all: async () => (await records()).map(life.signupOf),
    count: async () => (await records()).length,
    listRows: async () => (await records()).map(wholeList.listRowOf),
    confirmationCounts: async () => wholeList.confirmationCounts(await records()),
    failedConfirmations: async () => wholeList.failedConfirmations(await records()),
    lastConfirmationError: async () => wholeList.lastConfirmationError(await records()),
  };
}

export type RecordKeeper = ReturnType<typeof recordKeeper>;
