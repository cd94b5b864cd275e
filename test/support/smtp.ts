import type { AddressInfo, Socket } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";
import { until } from "./until";

export interface Delivery {
  /** When it arrived, by this process's clock (a simulation's, in the Netlify bench). */
  at: number;
  envelope: { from: string; to: string[] };
  mail: ParsedMail;
  raw: string;
}

export interface TestSmtpServer {
  url: string;
  port: number;
  deliveries: Delivery[];
  /** Resolves when `count` messages have arrived; rejects after `ms`. */
  waitFor(count: number, ms?: number): Promise<Delivery[]>;
  close(): Promise<void>;
}

/** A reply of an SMTP server: its code and the text after it. */
export interface ServerReply {
  code: number;
  text: string;
}

/** A reply as smtp-server sends it: an error whose responseCode is the reply's code. */
const replyError = (reply: ServerReply) => Object.assign(new Error(reply.text), { responseCode: reply.code });

/** Postfix's refusal of a mailbox it does not have: the address in brackets, as the client wrote it. */
export const postfixRefusal = (address: string): ServerReply => ({
  code: 550,
  text: `5.1.1 <${address}>: Recipient address rejected: User unknown in virtual mailbox table`,
});

/** Amazon SES's refusal in its sandbox: the address without brackets, at the end. */
export const sesRefusal = (address: string): ServerReply => ({
  code: 554,
  text: `Message rejected: Email address is not verified. The following identities failed the check in region US-EAST-1: ${address}`,
});

/** A real SMTP server on 127.0.0.1 that parses every message on arrival (mailparser). */
export async function startSmtpServer(
  port = 0,
  {
    beforeData,
    refuseRecipient,
    deferRecipient,
    replyToRecipient,
    refuseSender,
    admit,
    onSessionClose,
    afterData,
    onConnect,
    onClose,
    dropAtRecipient,
    dropAfterData,
  }: {
    beforeData?: () => Promise<void>;
    /** Recipients refused for good, the way a strict server refuses a mailbox it does not have (550). */
    refuseRecipient?: (address: string) => boolean;
    /** Recipients refused for now, as a server that is overloaded or greylisting does (451): try again later. */
    deferRecipient?: (address: string) => boolean;
    /**
     * Recipients refused with a reply of the test's own, word for word, as real servers word it (postfixRefusal,
     * sesRefusal): they quote the address.
     */
    replyToRecipient?: (address: string) => ServerReply | undefined;
    /** The sender refused, as a provider refuses one not verified or over its quota: its reply to MAIL FROM. */
    refuseSender?: () => ServerReply | undefined;
    /**
     * Whether to greet a new connection: a reply refuses it and closes it, as a provider at its limit of connections
     * does (421). It may take its time, as a provider's TLS handshake and AUTH do on every new connection: the client
     * is greeted once it resolves. onSessionClose hears of each connection's end, refused or not, by the same id.
     */
    admit?: (sessionId: string) => ServerReply | undefined | Promise<ServerReply | undefined>;
    onSessionClose?: (sessionId: string) => void;
    /**
     * The message received in full, before it is kept: it may take its time (a provider's over each message), and a
     * reply refuses it after DATA and drops it, as SES does over its sending rate or daily quota.
     */
    afterData?: (envelope: { from: string; to: string[] }) => Promise<ServerReply | undefined>;
    /** A client connected, and its connection closed: the Netlify bench holds its simulated clock meanwhile. */
    onConnect?: () => void;
    onClose?: () => void;
    /** The connection dropped without a word at this recipient's RCPT TO: before any of the message was sent. */
    dropAtRecipient?: (address: string) => boolean;
    /**
     * The message received in full and kept, and its connection dropped without a reply, as one lost between the
     * provider taking a message and its answer: the sender cannot know it went.
     */
    dropAfterData?: (envelope: { from: string; to: string[] }) => boolean;
  } = {},
): Promise<TestSmtpServer> {
  const deliveries: Delivery[] = [];
  /** Each client's connection by its port (every client is on 127.0.0.1), for a test that drops one. */
  const sockets = new Map<number, Socket>();
  const drop = (session: { remotePort: number }) => sockets.get(session.remotePort)?.destroy();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    // The senders keep their connections open for the next message (a pool): a server that stops tells them 421
    // and closes them at once, as a mail server going down does, rather than waiting 30 s for them to leave.
    closeTimeout: 50,
    // A local server: no reverse lookup of 127.0.0.1, a real wait in DNS that the Netlify bench's clock cannot see.
    disableReverseLookup: true,
    onConnect(session, callback) {
      void Promise.resolve(admit?.(session.id)).then((refused) => callback(refused && replyError(refused)));
    },
    onClose(session) {
      onSessionClose?.(session.id);
    },
    onMailFrom(_address, _session, callback) {
      const refused = refuseSender?.();
      if (refused) return callback(replyError(refused));
      // A slow server: hold the transaction until the test lets it go.
      if (beforeData) void beforeData().then(() => callback());
      else callback();
    },
    onRcptTo(address, session, callback) {
      const reply = replyToRecipient?.(address.address);
      if (dropAtRecipient?.(address.address)) {
        drop(session);
      } else if (reply) {
        callback(replyError(reply));
      } else if (refuseRecipient?.(address.address)) {
        callback(Object.assign(new Error("5.1.1 Mailbox unavailable"), { responseCode: 550 }));
      } else if (deferRecipient?.(address.address)) {
        callback(Object.assign(new Error("4.3.0 Try again later"), { responseCode: 451 }));
      } else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const envelope = {
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
        };
        const keep = async () => {
          const refused = await afterData?.(envelope);
          if (!refused) deliveries.push({ at: Date.now(), envelope, mail: await simpleParser(raw), raw });
          return refused;
        };
        keep().then(
          (refused) =>
            !refused && dropAfterData?.(envelope) ? drop(session) : callback(refused && replyError(refused)),
          (error: Error) => callback(error),
        );
      });
    },
  });
  // From the moment the connection is accepted, before the greeting: the bench's clock must not move while a
  // conversation starts.
  server.server.on("connection", (socket: Socket) => {
    onConnect?.();
    const port = socket.remotePort ?? 0;
    sockets.set(port, socket);
    socket.once("close", () => {
      sockets.delete(port);
      onClose?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const actualPort = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${actualPort}`,
    port: actualPort,
    deliveries,
    async waitFor(count, ms = 10_000) {
      await until(() => deliveries.length >= count, ms);
      return deliveries;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The personal leave link a confirmation carries: in its text, its HTML and its List-Unsubscribe header. */
export function leaveLinks(mail: ParsedMail): { text: string; html: string; header: string; mailto: string } {
  const pattern = /https?:\/\/[^\s"<>]+\/waitlist\/leave\?token=[A-Za-z0-9_.-]+/;
  const headerLine = mail.headerLines.find((line) => line.key === "list-unsubscribe")?.line ?? "";
  const targets = [...headerLine.replace(/\r?\n[ \t]+/g, " ").matchAll(/<([^>]+)>/g)].map((match) => match[1]!);
  const html = pattern.exec(String(mail.html).replaceAll("&amp;", "&"))?.[0] ?? "";
  return {
    text: pattern.exec(mail.text ?? "")?.[0] ?? "",
    html,
    header: targets.find((target) => pattern.test(target)) ?? "",
    mailto: targets.find((target) => target.startsWith("mailto:")) ?? "",
  };
}

/** The confirm link of a confirmation: in its text part, and the Confirm my spot button of its HTML part. */
export function confirmLinks(mail: ParsedMail): { text: string; html: string } {
  const pattern = /https?:\/\/[^\s"<>]+\/waitlist\/confirm\?token=[A-Za-z0-9_.-]+/;
  const button = /<a href="([^"]+)"[^>]*>Confirm my spot<\/a>/.exec(String(mail.html))?.[1] ?? "";
  return {
    text: pattern.exec(mail.text ?? "")?.[0] ?? "",
    html: pattern.exec(button.replaceAll("&amp;", "&"))?.[0] ?? "",
  };
}

/** A port nothing listens on: a mail server that is down. */
export async function closedPort(): Promise<number> {
  const probe = await startSmtpServer();
  await probe.close();
  return probe.port;
}

/** A link from a message, which points at SITE_URL, pointed at the server under test (at `url`) instead. */
export function atServer(url: string, link: string): string {
  const { pathname, search } = new URL(link);
  return `${url}${pathname}${search}`;
}
