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
  /** Read the client IP from X-Forwarded-For (only behind a proxy you run). */
  trustProxy: boolean;
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

/** Settings of the waitlist receiver and the preview server, from the environment. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  return {
    host: env.HOST?.trim() || "127.0.0.1",
    port: wholeNumber(env, "PORT", 9000, 0, 65535),
    dbFile: path.resolve(root, env.WAITLIST_DB?.trim() || "data/waitlist.db"),
    publicDir: path.resolve(root, env.PUBLIC_DIR?.trim() || "public"),
    rateLimitPerMinute: wholeNumber(env, "WAITLIST_RATE_LIMIT", 5, 1, 1_000_000),
    trustProxy: /^(1|true|yes)$/i.test(env.TRUST_PROXY?.trim() ?? ""),
  };
}
