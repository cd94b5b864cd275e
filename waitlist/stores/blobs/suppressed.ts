import type { SuppressionReason } from "../../signup-life/types";

/*
 * suppressed/<mailbox>, one read whatever is asked of it (../store.ts, suppress): the mailbox held whole (a complaint)
 * as `until` and `why`, as such a blob always was; an address of it held alone (a bounce) under `addresses`. The day's
 * pass deletes the blob once every hold in it is over.
 */
type Held = { until: string; why: SuppressionReason };
export type Suppressed = Partial<Held> & { addresses?: Record<string, Held> };

/** The mailbox's hold, or that of the address of fingerprint `address`: own keys only. */
export const heldOf = (found: Suppressed, address?: string): Partial<Held> | undefined =>
  address === undefined ? found : Object.hasOwn(found.addresses ?? {}, address) ? found.addresses![address] : undefined;

export const withHeld = (found: Suppressed, address: string | undefined, held: Held): Suppressed =>
  address === undefined ? { ...found, ...held } : { ...found, addresses: { ...found.addresses, [address]: held } };

/** When the last hold in it ends. */
export const lastUntil = ({ until = "", addresses = {} }: Suppressed) =>
  [until, ...Object.values(addresses).map((held) => held.until)].sort().at(-1)!;
