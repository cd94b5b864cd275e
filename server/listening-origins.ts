import ipaddr from "ipaddr.js";

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
