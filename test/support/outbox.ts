import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { simpleParser, type ParsedMail } from "mailparser";
import { until } from "./until";

/*
 * The outbox: where a server without SMTP_URL writes each message, one .eml
 * file per message (waitlist/mail/mailer.ts).
 */

/** The .eml files in the outbox `dir`; none before the server has written one. */
export function outboxFiles(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".eml")) : [];
}

/** The message in the outbox `dir` addressed to `email`, once it is there. */
export async function outboxMailTo(dir: string, email: string, ms = 10_000): Promise<ParsedMail> {
  let found: ParsedMail | undefined;
  const arrived = async () => {
    for (const name of outboxFiles(dir)) {
      const mail = await simpleParser(readFileSync(path.join(dir, name)));
      if (mail.to && !Array.isArray(mail.to) && mail.to.value.some((to) => to.address === email)) found = mail;
    }
    return found !== undefined;
  };
  await until(arrived, ms).catch(() => {
    throw new Error(`No message to ${email} in the outbox ${dir} within ${ms} ms.`);
  });
  return found!;
}
