import { verify, X509Certificate } from "node:crypto";
import { refuse, type WebhookRefusal } from "./events";

/*
 * An Amazon SNS message's signature, checked as AWS documents it
 * (https://docs.aws.amazon.com/sns/latest/dg/sns-verify-signature-of-message.html). Node's own crypto, not a library:
 * the two on npm that do it (sns-validator, AWS's own; sns-payload-validator) fetch the certificate with https.get and
 * no time limit, through nothing a test can stand in for, and sns-payload-validator caches whatever body came back, an
 * error page too, for good. The check itself is a dozen lines over X509Certificate and crypto.verify.
 */

/** How a certificate is fetched: the default over HTTPS; a test serves its own. */
export type FetchCertificate = (url: URL) => Promise<string>;

export interface SnsSettings {
  /** The topics whose messages are taken (SES_SNS_TOPIC_ARN); without it, any topic's, from any AWS account. */
  topicArns?: readonly string[];
  fetchCertificate?: FetchCertificate;
  now?: () => number;
}

export interface SnsMessage {
  Type: "Notification" | "SubscriptionConfirmation" | "UnsubscribeConfirmation";
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  Subject?: string;
  SubscribeURL?: string;
  Token?: string;
}

/**
 * How old a message may be. SNS signs its publishing time, and its retries keep it: the default HTTP delivery policy
 * gives up within a minute, so an hour leaves room for a slow retry and a skewed clock, while a captured message
 * replayed later is refused. The caller's once-per-id check covers the hour.
 */
export const snsReplayWindowMs = 60 * 60 * 1000;
const futureSkewMs = 5 * 60 * 1000;

/**
 * SNS's own hosts, in AWS's commercial and GovCloud regions: sns.us-east-1.amazonaws.com, never sns.evil.com nor
 * sns.us-east-1.amazonaws.com.evil.com. China's regions (amazonaws.com.cn, another partition run by other companies)
 * are left out: nothing here sends mail from them, and each host trusted is one more that could sign.
 */
const snsHost = /^sns\.[a-z]{2}(?:-gov)?-[a-z]+-\d+\.amazonaws\.com$/;

/** `text` as an https URL on an SNS host, with no port or credentials, its path ending as `path` says. */
export function snsUrl(text: unknown, path: RegExp): URL | undefined {
  if (typeof text !== "string") return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  const plain = url.protocol === "https:" && url.port === "" && url.username === "" && url.password === "";
  return plain && snsHost.test(url.hostname) && path.test(url.pathname) ? url : undefined;
}

const fields = {
  Notification: ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"],
  SubscriptionConfirmation: ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"],
  UnsubscribeConfirmation: ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"],
} as const;

/** What SNS signed: each field present, in AWS's order, as "name\nvalue\n". */
export function snsStringToSign(message: Record<string, unknown>): string {
  const names = Object.hasOwn(fields, message.Type as string) ? fields[message.Type as SnsMessage["Type"]] : [];
  return names
    .filter((name) => typeof message[name] === "string")
    .map((name) => `${name}\n${message[name] as string}\n`)
    .join("");
}

/** A GET of an SNS URL (a certificate, a subscription's confirmation) through `fetchWith`, within 5 s. */
export const snsGet = (fetchWith: typeof fetch, url: URL) =>
  // No redirect: the host checked is the host that answers.
  fetchWith(url, { redirect: "error", signal: AbortSignal.timeout(5_000) });

/** Fetches certificates through `fetchWith`: make one for good, for the certificates are kept by it. */
export const certificateFetcher =
  (fetchWith: typeof fetch): FetchCertificate =>
  async (url) => {
    const response = await snsGet(fetchWith, url);
    if (!response.ok) throw new Error(`${url.host} answered ${response.status} for the SNS signing certificate`);
    return response.text();
  };

export const fetchCertificateOverHttps: FetchCertificate = certificateFetcher((...args) => fetch(...args));

/** Certificates by URL, for each way of fetching them: only ones that parsed, at most 50 (SNS uses a few). */
const certificates = new WeakMap<FetchCertificate, Map<string, X509Certificate>>();

async function certificateAt(url: URL, fetchCertificate: FetchCertificate): Promise<X509Certificate | undefined> {
  const cache = certificates.get(fetchCertificate) ?? new Map<string, X509Certificate>();
  certificates.set(fetchCertificate, cache);
  const cached = cache.get(url.href);
  if (cached) return cached;
  // A fetch that fails throws to the caller (500): SNS sends the message again later.
  const pem = await fetchCertificate(url);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem);
  } catch {
    return undefined;
  }
  if (cache.size >= 50) cache.delete(cache.keys().next().value!);
  cache.set(url.href, certificate);
  return certificate;
}

function signatureHolds(algorithm: string, signed: Buffer, certificate: X509Certificate, signature: Buffer): boolean {
  try {
    return verify(algorithm, signed, certificate.publicKey, signature);
  } catch {
    // A key of a kind that cannot verify this algorithm: no signature of SNS's.
    return false;
  }
}

/** SNS's signature versions and the hash each signs with. */
const signatureAlgorithms: Readonly<Record<string, string>> = { "1": "sha1", "2": "sha256" };

const required = ["Type", "MessageId", "TopicArn", "Message", "Timestamp"] as const;

/** `body` (parsed JSON) as an SNS message whose signature, certificate, topic and time hold; else the refusal. */
export async function verifySnsMessage(
  body: Record<string, unknown>,
  { topicArns, fetchCertificate = fetchCertificateOverHttps, now = Date.now }: SnsSettings,
): Promise<SnsMessage | WebhookRefusal> {
  if (required.some((name) => typeof body[name] !== "string") || !Object.hasOwn(fields, body.Type as string)) {
    return refuse(400, "not an SNS message: Type, MessageId, TopicArn, Message or Timestamp is missing or unknown");
  }
  if (typeof body.Signature !== "string" || typeof body.SigningCertURL !== "string") {
    return refuse(401, "unsigned: the SNS message has no Signature or SigningCertURL");
  }
  // Own keys only: a SignatureVersion of "constructor" or "toString" names no algorithm, whatever an object inherits.
  const version = String(body.SignatureVersion);
  const algorithm = Object.hasOwn(signatureAlgorithms, version) ? signatureAlgorithms[version] : undefined;
  if (!algorithm) return refuse(403, "SignatureVersion is neither 1 nor 2, the versions SNS signs with");
  const certificateUrl = snsUrl(body.SigningCertURL, /\.pem$/);
  if (!certificateUrl) return refuse(403, "SigningCertURL is not an https .pem file on sns.<region>.amazonaws.com");
  if (topicArns && !topicArns.includes(body.TopicArn as string)) {
    return refuse(403, "the message's TopicArn is not one of SES_SNS_TOPIC_ARN's");
  }
  const sent = Date.parse(body.Timestamp as string);
  if (Number.isNaN(sent) || now() - sent > snsReplayWindowMs || sent - now() > futureSkewMs) {
    return refuse(403, "replayed or delayed: the SNS Timestamp is more than an hour from this server's clock");
  }
  const certificate = await certificateAt(certificateUrl, fetchCertificate);
  const signature = Buffer.from(body.Signature, "base64");
  const signed = Buffer.from(snsStringToSign(body), "utf8");
  if (!certificate || !signatureHolds(algorithm, signed, certificate, signature)) {
    return refuse(403, "forged: the SNS signature does not match the message under its SigningCertURL's certificate");
  }
  return body as unknown as SnsMessage;
}
