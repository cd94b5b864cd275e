import path from "node:path";

export class ConfigError extends Error {}

export interface ServerConfig {
  host: string;
  port: number;
  /** SQLite file of the waitlist. */
  dbFile: string;
  /** The built site. */
  publicDir: string;
  /** Signups accepted per client IP per minute. */
  rateLimitPerMinute: number;
  /**
   * Requests to the leave link per client IP per minute: more than signups, because mail providers send
   * their users' one-click POSTs from a few addresses of their own.
   */
  leaveRateLimitPerMinute: number;
  /** WAITLIST_SECRET, which signs the leave links; without it the store makes and keeps one. */
  leaveSecret: string | undefined;
  /**
   * How many proxies of yours stand in front of the server. 0: none, the
   * client is the socket's peer. 1: one, the client is the address that proxy
   * saw, the last in X-Forwarded-For; anything a client wrote before it is ignored.
   */
  trustProxy: number;
  /** How long one sender may hold an owed confirmation before another may take it over (a crashed one's). */
  confirmationLeaseMs: number;
  /** How often the running server looks for owed confirmations: expired holds, failures due a retry. */
  confirmationSweepMs: number;
}

const root = path.resolve(__dirname, "..");

function wholeNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}").`);
  }
  return value;
}

/** TRUST_PROXY: a count of proxies, never "true", which would believe whatever X-Forwarded-For a client sends. */
function proxyHops(env: NodeJS.ProcessEnv): number {
  const raw = env.TRUST_PROXY?.trim();
  if (raw && !/^\d+$/.test(raw)) {
    throw new ConfigError(
      `TRUST_PROXY must be the number of your proxies in front of the server, from 0 to 10 (got "${raw}"); behind one proxy: TRUST_PROXY=1.`,
    );
  }
  return wholeNumber(env, "TRUST_PROXY", 0, 0, 10);
}

export const minSecretLength = 32;

/** WAITLIST_SECRET, when set; a ConfigError when it is too short to be a secret. */
export function readLeaveSecret(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const secret = env.WAITLIST_SECRET?.trim();
  if (!secret) return undefined;
  if (secret.length < minSecretLength) {
    throw new ConfigError(
      `WAITLIST_SECRET must be at least ${minSecretLength} characters (got ${secret.length}); make one with: ` +
        `node -e "console.log(require('node:crypto').randomBytes(32).toString('base64url'))"`,
    );
  }
  return secret;
}

/** Settings of the waitlist receiver and the preview server, from the environment. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  return {
    host: env.HOST?.trim() || "127.0.0.1",
    port: wholeNumber(env, "PORT", 9000, 0, 65535),
    dbFile: path.resolve(root, env.WAITLIST_DB?.trim() || "data/waitlist.db"),
    publicDir: path.resolve(root, env.PUBLIC_DIR?.trim() || "public"),
    rateLimitPerMinute: wholeNumber(env, "WAITLIST_RATE_LIMIT", 5, 1, 1_000_000),
    leaveRateLimitPerMinute: wholeNumber(env, "WAITLIST_LEAVE_RATE_LIMIT", 60, 1, 1_000_000),
    leaveSecret: readLeaveSecret(env),
    trustProxy: proxyHops(env),
    confirmationLeaseMs: wholeNumber(env, "CONFIRMATION_LEASE_SECONDS", 120, 1, 3600) * 1000,
    confirmationSweepMs: wholeNumber(env, "CONFIRMATION_SWEEP_SECONDS", 30, 1, 3600) * 1000,
  };
}
