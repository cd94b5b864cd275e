import ipaddr from "ipaddr.js";
import { isLocalHost } from "../config/env";

/**
 * The origins a browser names when it loads the site from the address a
 * connection came in on: http://127.0.0.1:9000, and http://localhost:9000 on
 * a loopback address. Read from the socket, never from the request's Host
 * header, which a DNS-rebinding page chooses.
 */
export function listeningOrigins(socket: { localAddress?: string; localPort?: number }): string[] {
  const { localAddress, localPort } = socket;
  if (!localAddress || !localPort || !ipaddr.isValid(localAddress)) return [];
  const address = ipaddr.process(localAddress);
  const host = address.kind() === "ipv6" ? `[${address.toString()}]` : address.toString();
  const origins = [new URL(`http://${host}:${localPort}`).origin];
  if (address.range() === "loopback") origins.push(new URL(`http://localhost:${localPort}`).origin);
  return origins;
}

/**
 * Where the links in npm start's e-mails point without SITE_URL: the address it listens on, as a browser on this
 * machine opens it. http://localhost:9000 on a loopback address or on every address (0.0.0.0, ::), the host itself
 * otherwise.
 */
export function listeningSiteUrl(host: string, port: number): string {
  const address = ipaddr.isValid(host) ? ipaddr.process(host) : undefined;
  const local = address ? ["loopback", "unspecified"].includes(address.range()) : isLocalHost(host);
  const name = local ? "localhost" : address?.kind() === "ipv6" ? `[${address.toString()}]` : host;
  return `http://${name}:${port}`;
}
