import { randomBytes } from "node:crypto";
import { keyedDigest } from "../../fingerprints";
import { BlobsStoreError, type BlobIO } from "./blob-io";
import { layout } from "./layout";

/*
 * The secrets the store keeps (docs/configuration.md says how to back them up): settings/record-secret, the key of
 * every record's <k>, settings/leave-secret, the links' secret when WAITLIST_SECRET is not set, and fingerprint-secret
 * (../../fingerprints.ts). Each is made once, on first use, for every instance; a store that already keeps records
 * refuses to make a record key again, for a new one would lose them all: every address would map to a new <k>.
 */

/** An address's <k>: its keyed digest under the store's record key (the Netlify bench seeds a store with it). */
export const keyOf = (recordSecret: string, emailKey: string) => keyedDigest(recordSecret, "record", emailKey);

export class StoreSecrets {
  private recordSecret: Promise<string> | undefined;
  constructor(private readonly io: BlobIO) {}
  /** An address's <k>, under settings/record-secret, read once an instance. */
  async key(emailKey: string): Promise<string> {
    this.recordSecret ??= this.secret("record", () => randomBytes(32).toString("hex")).catch((error: unknown) => {
      this.recordSecret = undefined;
      throw error;
    });
    return keyOf(await this.recordSecret, emailKey);
  }
  /**
   * settings/<name>-secret, made with `make` if the store keeps none and no record yet. A store that makes its record
   * key has no record of the earlier layout to carry forward, unless it lists some.
   */
  async secret(name: "leave" | "fingerprint" | "record", make: () => string): Promise<string> {
    const key = layout.setting(`${name}-secret`);
    const read = () => this.io.blobs.get(key, { type: "text", consistency: "strong" });
    const found = await read();
    if (found) return found;
    // The record key is written before the first record: records without it mean it was lost, not that none was
    // made; one page of the listing tells, and the key is read again, for another instance may have made it and a
    // record since. (The links' secret may be made late: a site that unsets WAITLIST_SECRET signs with a new one.)
    const pages = this.io.blobs.list({ prefix: layout.record(""), paginate: true })[Symbol.asyncIterator]();
    if (name === "record" && ((await pages.next()).value?.blobs.length ?? 0) > 0 && !(await read())) {
      throw new BlobsStoreError(
        `${key} is missing while the store keeps records: a new key would lose every signup (each address would be looked for under another name). Restore ${key} from your backup (docs/configuration.md, "The secrets the site keeps"); nothing was written.`,
      );
    }
    const made = await this.io.blobs.set(key, make(), { onlyIfNew: true });
    if (name === "record" && made.modified && (await this.io.keys(layout.earlierPrefix)).length === 0) {
      await this.io.blobs.set(layout.setting("layout"), "keyed");
    }
    const value = await read();
    if (!value) throw new BlobsStoreError(`${key} could not be read back; try again.`);
    return value;
  }
}
