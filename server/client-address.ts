import ipaddr from "ipaddr.js";

/**
 * The key a client is counted under (the rate limit, the connection cap).
 * IPv4 as it is (an IPv4-mapped IPv6 address counts as its IPv4 one); IPv6
 * by its /64, the block one host or one home network is given, so that a
 * client cannot rotate through its own addresses to start afresh. Anything
 * unparsable is its own key.
 */
export function clientKey(address: string | undefined): string {
  if (!address || !ipaddr.isValid(address)) return address ?? "unknown";
  const parsed = ipaddr.process(address);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const prefix = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${prefix.join(":")}::/64`;
}

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
