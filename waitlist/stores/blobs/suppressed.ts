import type { SuppressionReason } from "../../signup-life/types";

/*
 * suppressed/<mailbox>: what is held of one mailbox (../store.ts, suppress), read in one operation whatever is asked of
 * it. The mailbox held whole (a complaint) has `until` and `why`, as every blob had before an address could be held
 * alone; an address held alone (a bounce) is under `addresses`, by its own fingerprint.
 */

export interface Held {
  until: string;
  why: SuppressionReason;
}

export interface Suppressed extends Partial<Held> {
  addresses?: Record<string, Held>;
}

/** What is held of the address of fingerprint `address`: an own key only, whatever a blob holds. */
export const heldAddress = (found: Suppressed, address: string): Held | undefined =>
  found.addresses && Object.hasOwn(found.addresses, address) ? found.addresses[address] : undefined;

/**
 * What is still held at `ended` (ISO): `found` itself when nothing ended, a copy without what did, or undefined when
 * nothing is left and the blob may go.
 */
export function stillSuppressed(found: Suppressed, ended: string): Suppressed | undefined {
  const addresses = Object.entries(found.addresses ?? {}).filter(([, held]) => held.until >= ended);
  const whole = found.until !== undefined && found.until >= ended;
  if (!whole && addresses.length === 0) return undefined;
  if (whole === (found.until !== undefined) && addresses.length === Object.keys(found.addresses ?? {}).length) {
    return found;
  }
  return {
    ...(whole ? { until: found.until, why: found.why } : {}),
    ...(addresses.length > 0 ? { addresses: Object.fromEntries(addresses) } : {}),
  };
}
