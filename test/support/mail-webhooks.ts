import { execFileSync } from "node:child_process";
import { createHmac, generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/*
 * The providers' bounce and complaint webhooks as they post them: their JSON, signed as each signs it, with keys and
 * secrets of the test's own. The signing follows each provider's documentation here, not waitlist/'s code, so a test
 * checks the verifier against the documented scheme rather than against itself.
 */

export type Provider = "ses" | "resend" | "postmark";
export interface Posted {
  headers: Record<string, string>;
  body: string;
}
/** What happened to one message, to post: who, a bounce or a complaint, and whether for good. */
export interface ProviderEvent {
  kind: "bounce" | "complaint";
  address: string;
  permanent: boolean;
  /** When it happened (ms); now by default. */
  at?: number;
}

export const testTopicArn = "arn:aws:sns:us-east-1:123456789012:ses-events";
export const testCertificateUrl =
  "https://sns.us-east-1.amazonaws.com/SimpleNotificationService-0123456789abcdef0123456789abcdef.pem";

export interface SnsKey {
  privateKey: KeyObject;
  /** The self-signed certificate of the key, PEM. */
  certificate: string;
  /** Serves `certificate` at any URL, as the verifier's fetchCertificate, and notes each URL asked for. */
  fetchCertificate: (url: URL) => Promise<string>;
  fetched: string[];
}

/** An RSA key and a certificate for it that the openssl CLI signs, as SNS's own are. */
export function snsKey(): SnsKey {
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const dir = mkdtempSync(path.join(os.tmpdir(), "sns-key-"));
  try {
    const keyFile = path.join(dir, "key.pem");
    writeFileSync(keyFile, privateKey.export({ type: "pkcs8", format: "pem" }));
    const certificateFile = path.join(dir, "certificate.pem");
    execFileSync(
      "openssl",
      ["req", "-x509", "-new", "-key", keyFile, "-subj", "/CN=sns.amazonaws.com", "-days", "2"].concat([
        "-out",
        certificateFile,
      ]),
    );
    const certificate = readFileSync(certificateFile, "utf8");
    const fetched: string[] = [];
    const fetchCertificate = async (url: URL) => (fetched.push(url.href), certificate);
    return { privateKey, certificate, fetchCertificate, fetched };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** AWS's string to sign: these fields, those present, in this order, each as "name\nvalue\n". */
const signed = {
  Notification: ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"],
  SubscriptionConfirmation: ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"],
};

/** An SNS message as SNS posts it over HTTP, signed with `key` (SignatureVersion 1: SHA1withRSA; 2: SHA256withRSA). */
export function snsMessage(
  key: KeyObject,
  fields: { Type?: keyof typeof signed; Message: string; Timestamp?: string; TopicArn?: string } & Record<
    string,
    string
  >,
  { version = "2", certificateUrl = testCertificateUrl }: { version?: "1" | "2"; certificateUrl?: string } = {},
): string {
  const message: Record<string, string> = {
    Type: "Notification",
    MessageId: randomUUID(),
    TopicArn: testTopicArn,
    Timestamp: new Date().toISOString(),
    ...fields,
  };
  const text = signed[message.Type as keyof typeof signed]
    .filter((name) => name in message)
    .map((name) => `${name}\n${message[name]}\n`)
    .join("");
  const signature = sign(version === "1" ? "sha1" : "sha256", Buffer.from(text), key).toString("base64");
  return JSON.stringify({
    ...message,
    SignatureVersion: version,
    Signature: signature,
    SigningCertURL: certificateUrl,
  });
}

/** SES's notification of a bounce or complaint, the Message of an SNS notification (SES's notification format). */
export function sesNotification({ kind, address, permanent, at = Date.now() }: ProviderEvent): string {
  const timestamp = new Date(at).toISOString();
  const mail = { timestamp, messageId: randomUUID(), source: "hello@jointandem.app", destination: [address] };
  return JSON.stringify(
    kind === "bounce"
      ? {
          notificationType: "Bounce",
          bounce: {
            bounceType: permanent ? "Permanent" : "Transient",
            bounceSubType: permanent ? "General" : "MailboxFull",
            bouncedRecipients: [{ emailAddress: address, status: permanent ? "5.1.1" : "4.2.2" }],
            timestamp,
            feedbackId: randomUUID(),
          },
          mail,
        }
      : {
          notificationType: "Complaint",
          complaint: { complainedRecipients: [{ emailAddress: address }], timestamp, feedbackId: randomUUID() },
          mail,
        },
  );
}

/** A Svix signing secret as Resend shows it. */
export const svixSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/** Svix's headers for `body`: v1, the HMAC-SHA256 of "id.timestamp.body" under the secret's base64 key. */
export function svixHeaders(
  secret: string,
  body: string,
  { id = `msg_${randomUUID()}`, at = Date.now() }: { id?: string; at?: number } = {},
): Record<string, string> {
  const timestamp = String(Math.floor(at / 1000));
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const mac = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64");
  return { "svix-id": id, "svix-timestamp": timestamp, "svix-signature": `v1,${mac}` };
}

/** Resend's email.bounced or email.complained event. */
export function resendEvent({ kind, address, permanent, at = Date.now() }: ProviderEvent): string {
  const createdAt = new Date(at).toISOString();
  const data = { email_id: randomUUID(), created_at: createdAt, from: "hello@jointandem.app", to: [address] };
  const bounce = {
    message: "The recipient's mail server rejected it",
    subType: "General",
    type: permanent ? "Permanent" : "Transient",
  };
  return kind === "bounce"
    ? JSON.stringify({ type: "email.bounced", created_at: createdAt, data: { ...data, bounce } })
    : JSON.stringify({ type: "email.complained", created_at: createdAt, data });
}

/** Postmark's bounce or spam complaint record, as its webhooks post them. */
export function postmarkRecord({ kind, address, permanent, at = Date.now() }: ProviderEvent, type?: string): string {
  const record = {
    ID: Math.floor(Math.random() * 2 ** 40),
    MessageID: randomUUID(),
    Email: address,
    From: "hello@jointandem.app",
    BouncedAt: new Date(at).toISOString(),
    CanActivate: !permanent,
    MessageStream: "outbound",
    // The receiving server's words, which quote the address as real ones do.
    Details: `smtp;550 5.1.1 <${address}>: Recipient address rejected: User unknown`,
  };
  return JSON.stringify(
    kind === "complaint"
      ? { RecordType: "SpamComplaint", Type: "SpamComplaint", TypeCode: 512, Inactive: true, ...record }
      : {
          RecordType: "Bounce",
          Type: type ?? (permanent ? "HardBounce" : "SoftBounce"),
          Inactive: permanent,
          ...record,
        },
  );
}

export const basicAuth = (auth: string) => `Basic ${Buffer.from(auth).toString("base64")}`;

/** How each provider's webhook is signed here: the test's SNS key, Svix secret, Postmark user and password. */
export interface WebhookSigning {
  snsKey?: KeyObject;
  svixSecret?: string;
  postmarkAuth?: string;
}

/** `event` as `provider` posts it: its JSON and its signature. */
export function providerWebhook(provider: Provider, event: ProviderEvent, signing: WebhookSigning): Posted {
  const at = event.at ?? Date.now();
  if (provider === "ses") {
    if (!signing.snsKey) throw new Error("an SES webhook needs the SNS key to sign with (snsKey())");
    const body = snsMessage(signing.snsKey, { Message: sesNotification(event), Timestamp: new Date(at).toISOString() });
    return { headers: { "content-type": "text/plain; charset=UTF-8", "x-amz-sns-message-type": "Notification" }, body };
  }
  if (provider === "resend") {
    if (!signing.svixSecret) throw new Error("a Resend webhook needs the Svix secret to sign with (svixSecret())");
    const body = resendEvent(event);
    return { headers: { "content-type": "application/json", ...svixHeaders(signing.svixSecret, body, { at }) }, body };
  }
  if (!signing.postmarkAuth) throw new Error('a Postmark webhook needs its "user:password"');
  return {
    headers: { "content-type": "application/json", authorization: basicAuth(signing.postmarkAuth) },
    body: postmarkRecord(event),
  };
}
