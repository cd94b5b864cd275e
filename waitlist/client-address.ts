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
