import { mkdirSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import nodemailer from "nodemailer";
import { site } from "../src/site";
import { ConfigError } from "./config";
import type { MailMessage } from "./confirmation-message";

export interface MailConfig {
  /** smtp:// or smtps:// URL of the mail server; without it, messages go to outboxDir as .eml files. */
  smtpUrl?: string;
  from: string;
  outboxDir: string;
}

export interface Mailer {
  /** Where messages go, for logs (never with a password). */
  readonly destination: string;
  send(message: MailMessage): Promise<void>;
  close(): void;
}

const root = path.resolve(__dirname, "..");

export function readMailConfig(env: NodeJS.ProcessEnv = process.env): MailConfig {
  const smtpUrl = env.SMTP_URL?.trim() || undefined;
  if (smtpUrl) {
    let protocol: string;
    try {
      protocol = new URL(smtpUrl).protocol;
    } catch {
      throw new ConfigError("SMTP_URL must be a URL like smtps://user:password@smtp.example.com:465.");
    }
    if (protocol !== "smtp:" && protocol !== "smtps:") {
      throw new ConfigError(`SMTP_URL must start with smtp:// or smtps:// (got ${protocol}//).`);
    }
  }
  return {
    smtpUrl,
    from: env.MAIL_FROM?.trim() || `"${site.name}" <${site.contactEmail}>`,
    outboxDir: path.resolve(root, env.OUTBOX_DIR?.trim() || "data/outbox"),
  };
}

/**
 * nodemailer over SMTP, or, with no SMTP_URL (a fresh machine), nodemailer's
 * stream transport writing each message as an .eml file to the outbox.
 */
export function createMailer(config: MailConfig): Mailer {
  if (config.smtpUrl) {
    const url = new URL(config.smtpUrl);
    const transport = nodemailer.createTransport({
      url: config.smtpUrl,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    });
    return {
      destination: `${url.protocol}//${url.host}`,
      async send(message) {
        await transport.sendMail({ ...message, from: config.from });
      },
      close: () => transport.close(),
    };
  }
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "unix" });
  return {
    destination: path.relative(process.cwd(), config.outboxDir) || config.outboxDir,
    async send(message) {
      const info = await transport.sendMail({ ...message, from: config.from });
      mkdirSync(config.outboxDir, { recursive: true });
      // One file per message: a resend of the same message (a crash between sending and recording it) replaces it.
      const name = `${createHash("sha256").update(message.messageId).digest("hex").slice(0, 24)}.eml`;
      writeFileSync(path.join(config.outboxDir, name), info.message as Buffer);
    },
    close: () => transport.close(),
  };
}
