import { readdirSync, rmSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import nodemailer from "nodemailer";
import type { MailMessage } from "./confirmation-message";
import { privateFolder, writePrivateFile } from "../private-file";
import { classifyMailFailure } from "./replies";
import type { MailSent, PaceConnection } from "./pace";
import { markHandedOver, watchHandOver, type HandOver } from "./handed-over";

export interface MailConfig {
  /** smtp:// or smtps:// URL of the mail server; without it, messages go to outboxDir as .eml files. */
  smtpUrl?: string;
  from: string;
  outboxDir: string;
  /**
   * Connections to the mail server kept open at most, each reused for the next message (MAIL_CONNECTIONS), by a
   * message sent without a lease's connection (a founder's test message): the pace's senders use their leases'.
   */
  connections?: number;
  /**
   * How long a lease's connection stays open with no message (ms), for the next one; never past the lease's end. On
   * Netlify 0: a function instance is frozen once its work is done, with whatever socket it left open.
   */
  idleMs?: number;
}

export interface Mailer {
  /** Where messages go, for logs (never with a password). */
  readonly destination: string;
  /**
   * Resolves once the server took it, with its timing where it has one (for the pace's count: pace.ts). Over
   * `connection`, the pace ticket's: that lease's one connection, opened for it if none is (pace-leases.ts).
   */
  send(message: MailMessage, connection?: PaceConnection): Promise<MailSent | void>;
  /**
   * Deletes every copy this machine keeps of mail to `email`: the outbox's files, which a mailer over SMTP may have
   * left too (written before SMTP_URL was set). None on Netlify, whose functions keep no files.
   */
  forget?(email: string): void;
  close(): void;
}

/**
 * The mail server refused this recipient's address for good: a reply about the address (RFC 3463's X.1, or the
 * providers' words for it: replies.ts). A 5xx to RCPT TO about anything else (a relay denied, the sender, Google's
 * used-up daily relay limit, a full mailbox) is not: it may pass once the sending is put right, or later.
 */
export function isPermanentFailure(error: unknown): boolean {
  return classifyMailFailure(error) === "recipient";
}

/**
 * The sending failed, not one recipient: the credentials, the sender, the message as a whole, the connection, the
 * provider's rate or its daily quota. No later message over the same server fares better until that is put right or
 * has passed, so a run of many stops at the first. A 4xx outside RCPT TO counts too: it is no one recipient's.
 */
export function isSendingFailure(error: unknown): boolean {
  const kind = classifyMailFailure(error);
  // One message whose fate is unknown says nothing of the next.
  if (kind === "unknown") return false;
  if (kind !== "transient") return kind !== "recipient";
  const { command, code } = (error ?? {}) as { command?: unknown; code?: unknown };
  return command !== "RCPT TO" && (typeof command === "string" || typeof code === "string");
}

const digest = (text: string, length: number) =>
  createHash("sha256").update(text, "utf8").digest("hex").slice(0, length);

/**
 * An outbox file's name: who it is to, then which message. One file per
 * message (a resend of the same message, after a crash between sending and
 * recording it, replaces it), found by its recipient when they leave.
 */
export function outboxFileName(to: string, messageId: string): string {
  return `${digest(to.toLowerCase(), 16)}-${digest(messageId, 24)}.eml`;
}

/**
 * Deletes the outbox's files of mail to `email`. A leave deletes the person's entry at once, and so their mail here:
 * the outbox is a folder on a developer's machine or a server without SMTP_URL, so reading its names is cheap.
 */
export function forgetOutboxCopies(outboxDir: string, email: string): void {
  const prefix = `${digest(email.toLowerCase(), 16)}-`;
  let names: string[];
  try {
    names = readdirSync(outboxDir);
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith(prefix)) rmSync(path.join(outboxDir, name), { force: true });
}

/** The provider refused the connection at its greeting: past its limit of connections (421, or 432 at Microsoft). */
export const isConnectionRefused = (error: unknown) => {
  const { command, responseCode } = (error ?? {}) as { command?: unknown; responseCode?: unknown };
  return command === "CONN" && typeof responseCode === "number" && responseCode >= 400 && responseCode < 500;
};

/**
 * nodemailer over SMTP: a message with a lease's connection (the pace's) goes over that lease's one connection, kept
 * open between messages for `idleMs` and closed by the lease's end, so the process never has more connections open
 * than leases it holds; one without, over a pool of `connections`. Or, with no SMTP_URL (a fresh machine),
 * nodemailer's stream transport writing each message as an .eml file to the outbox.
 */
export function createMailer(config: MailConfig): Mailer {
  if (config.smtpUrl) {
    const url = new URL(config.smtpUrl);
    const smtpUrl = config.smtpUrl;
    const idleMs = config.idleMs ?? 5_000;
    // A pool: a message waits for a connection already open and greeted rather than opening its own, a round trip
    // or three saved on each (and a TLS handshake) when a sweep sends a backlog.
    const pool = (maxConnections: number) => {
      const transport = nodemailer.createTransport({
        url: smtpUrl,
        pool: true,
        maxConnections,
        connectionTimeout: 10_000,
        greetingTimeout: 10_000,
        socketTimeout: 30_000,
      });
      // Whether a message whose connection failed was handed over whole: its outcome is then unknown (replies.ts).
      watchHandOver(transport);
      return transport;
    };
    let shared: ReturnType<typeof pool> | undefined;
    /** Each lease's connection: its pool of one, its messages under way, and when it must be closed by (ms). */
    const leased = new Map<
      number,
      { transport: ReturnType<typeof pool>; sending: number; closeBy: number; timer?: NodeJS.Timeout }
    >();
    const closeLease = (lease: number) => {
      const one = leased.get(lease);
      if (!one) return;
      clearTimeout(one.timer);
      leased.delete(lease);
      one.transport.close();
    };
    async function sendOver(transport: ReturnType<typeof pool>, message: MailMessage): Promise<MailSent | undefined> {
      const handOver: HandOver = { whole: false };
      const options = { ...message, from: config.from, handOver };
      const info = (await transport.sendMail(options).catch((error: unknown) => {
        throw markHandedOver(error, handOver);
      })) as { envelopeTime?: number; messageTime?: number };
      // nodemailer times the envelope (MAIL FROM, RCPT TO) and the message (DATA to the reply). The server had the
      // whole message about an envelope's time after the envelope (the DATA command's round trip, the message's
      // bytes); the rest of the message's time was its answer (a provider's 0.2 to 1.5 s).
      const { envelopeTime, messageTime } = info;
      if (typeof envelopeTime !== "number" || typeof messageTime !== "number") return undefined;
      return { answeredAfterMs: Math.max(0, messageTime - envelopeTime) };
    }
    return {
      destination: `${url.protocol}//${url.host}`,
      async send(message, connection) {
        if (!connection) return sendOver((shared ??= pool(config.connections ?? 2)), message);
        const { lease } = connection;
        const one = leased.get(lease) ?? { transport: pool(1), sending: 0, closeBy: 0 };
        leased.set(lease, one);
        clearTimeout(one.timer);
        one.sending++;
        one.closeBy = Math.max(one.closeBy, Date.now() + connection.openForMs);
        try {
          return await sendOver(one.transport, message);
        } catch (error) {
          // The provider is at its limit of connections: this lease's is given up (pace.ts rests its shard).
          if (isConnectionRefused(error)) {
            connection.refused();
            if (one.sending === 1) closeLease(lease);
          }
          throw error;
        } finally {
          one.sending--;
          if (one.sending === 0 && leased.get(lease) === one) {
            const left = Math.min(idleMs, one.closeBy - Date.now());
            if (left <= 0) closeLease(lease);
            else one.timer = setTimeout(() => closeLease(lease), left).unref();
          }
        }
      },
      forget: (email) => forgetOutboxCopies(config.outboxDir, email),
      close: () => {
        for (const lease of [...leased.keys()]) closeLease(lease);
        shared?.close();
      },
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    destination: path.relative(process.cwd(), config.outboxDir) || config.outboxDir,
    async send(message) {
      const info = await transport.sendMail({ ...message, from: config.from });
      // Each message holds its confirm and leave links: the folder and the files are this user's only, whatever the
      // umask (an outbox an earlier version made 0755 is made 0700).
      privateFolder(config.outboxDir);
      writePrivateFile(
        path.join(config.outboxDir, outboxFileName(message.to, message.messageId)),
        info.message as Buffer,
      );
    },
    forget: (email) => forgetOutboxCopies(config.outboxDir, email),
    close: () => transport.close(),
  };
}
