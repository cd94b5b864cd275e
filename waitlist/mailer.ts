import { mkdirSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import path from "node:path";
import nodemailer from "nodemailer";
import { site } from "../src/site";
import type { Env } from "../config/env";
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

/** Where confirmations go, from SMTP_URL, MAIL_FROM and OUTBOX_DIR (config/env.ts checks them). */
export function mailConfig(env: Env): MailConfig {
  return {
    smtpUrl: env.SMTP_URL,
    from: env.MAIL_FROM ?? `"${site.name}" <${env.CONTACT_EMAIL}>`,
    outboxDir: env.OUTBOX_DIR,
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
