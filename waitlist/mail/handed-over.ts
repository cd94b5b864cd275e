import { Readable } from "node:stream";
import type { Transporter } from "nodemailer";

/*
 * Whether a message was handed over whole before its connection failed. nodemailer reports a connection lost after the
 * message's last byte exactly as one lost before its first (code ECONNECTION, command "CONN", no reply: its
 * smtp-connection's _onClose; a silent server, ETIMEDOUT with timeoutType SOCKET_TIMEOUT, either way), so the error
 * alone cannot say whether the provider may have the message (replies.ts's "unknown"). The message's own stream can:
 * nodemailer reads it only after the server's 354 to DATA, and once it is read to its end, all that is left is the
 * final dot and the server's reply.
 */

/** One message's watch: `whole` once its last byte went to the connection. */
export interface HandOver {
  whole: boolean;
}

/** `input`, read only as its reader asks (never ahead of the connection), with `ended` called at its last byte. */
function tellingTheEnd(input: Readable, ended: () => void): Readable {
  let started = false;
  const output: Readable = new Readable({
    read() {
      if (started) {
        input.resume();
        return;
      }
      started = true;
      input.on("data", (chunk: Buffer) => {
        if (!output.push(chunk)) input.pause();
      });
      input.once("end", () => output.push(null));
      input.once("error", (error) => output.destroy(error));
    },
    destroy(error, callback) {
      input.destroy();
      callback(error);
    },
  });
  // The reader has had the last byte (nodemailer then writes the final dot), not only this stream's buffer.
  output.once("end", ended);
  return output;
}

/**
 * Has `transport` tell each message's watch, passed as the message's `handOver` option (nodemailer keeps unknown
 * options on the message), when its last byte was read by the connection.
 */
export function watchHandOver(transport: Transporter): void {
  transport.use("stream", (mail, done) => {
    const watch = (mail.data as { handOver?: HandOver }).handOver;
    if (watch) {
      mail.message.processFunc((input) =>
        tellingTheEnd(input, () => {
          watch.whole = true;
        }),
      );
    }
    done();
  });
}

/** `error`, marked for replies.ts when its message was handed over whole (a copy where the error is not an object). */
export function markHandedOver(error: unknown, watch: HandOver): unknown {
  if (!watch.whole) return error;
  if (typeof error === "object" && error !== null) return Object.assign(error, { messageHandedOver: true });
  return { message: String(error), messageHandedOver: true };
}
