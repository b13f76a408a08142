/**
 * Classification of IP addresses for outbound (egress) requests: which addresses an `http_request`
 * action may reach. Pure, no I/O. Used by egress.ts; see docs/actions.md "Blocked targets".
 *
 * Policy: an allow-list of *public unicast*, everything else is blocked (fail closed).
 * - IPv4: only what ipaddr.js calls `unicast`. Blocked: 0/8, 10/8, 100.64/10, 127/8, 169.254/16,
 *   172.16/12, 192.0.0/24, 192.0.2/24, 192.88.99/24, 192.168/16, 198.18/15, 198.51.100/24,
 *   203.0.113/24, 224/4, 240/4 (incl. 255.255.255.255), AS112 and AMT anycast prefixes.
 *   Documentation and benchmarking ranges are blocked too: nothing legitimate lives there.
 * - IPv6: only global unicast 2000::/3 that ipaddr.js calls `unicast`. Blocked: ::/96 (unspecified,
 *   loopback, deprecated IPv4-compatible), ::ffff:0:0/96 is unmapped and judged as IPv4, fc00::/7,
 *   fe80::/10, fec0::/10, ff00::/8, 100::/64, 2001::/23, 2001:db8::/32, 3fff::/20, …
 * - Translation prefixes are judged by the IPv4 they embed: NAT64 64:ff9b::/96, 6to4 2002::/16 and
 *   Teredo 2001::/32 (server and client) are allowed only if every embedded IPv4 is public.
 *   Local-use NAT64 64:ff9b:1::/48 (RFC 8215) is always blocked: its embedding is site-defined.
 * - Anything that is not a plain IP literal per `net.isIP` (e.g. `127.1`, `0x7f000001`, zone ids)
 *   is blocked: callers must pass canonical addresses, and ambiguity never fails open.
 */
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/** `'public'` when reachable, otherwise the name of the range that blocks it. */
export type AddressClass = 'public' | 'invalid' | string;

function ipv4FromWords(hi: number, lo: number): ipaddr.IPv4 {
  return new ipaddr.IPv4([(hi >> 8) & 0xff, hi & 0xff, (lo >> 8) & 0xff, lo & 0xff]);
}

function classifyV4(addr: ipaddr.IPv4): AddressClass {
  const range = addr.range();
  return range === 'unicast' ? 'public' : range;
}

/** Every embedded IPv4 must be public; otherwise `<prefix>:<range of the first blocked one>`. */
function classifyEmbedded(prefix: string, embedded: ipaddr.IPv4[]): AddressClass {
  for (const v4 of embedded) {
    const cls = classifyV4(v4);
    if (cls !== 'public') return `${prefix}:${cls}`;
  }
  return 'public';
}

function classifyV6(addr: ipaddr.IPv6): AddressClass {
  const p = addr.parts;
  if (addr.isIPv4MappedAddress()) return classifyV4(addr.toIPv4Address());
  // ::/96 — unspecified, loopback and the deprecated IPv4-compatible form (::a.b.c.d).
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
    const range = addr.range();
    return range === 'unicast' ? 'ipv4Compatible' : range;
  }
  const range = addr.range();
  switch (range) {
    case 'rfc6052':
      // 64:ff9b::/96 embeds the IPv4 in the last 32 bits; 64:ff9b:1::/48 is local-use.
      if (p[0] === 0x64 && p[1] === 0xff9b && p[2] === 0 && p[3] === 0 && p[4] === 0 && p[5] === 0) {
        return classifyEmbedded('nat64', [ipv4FromWords(p[6], p[7])]);
      }
      return 'nat64Local';
    case '6to4':
      return classifyEmbedded('6to4', [ipv4FromWords(p[1], p[2])]);
    case 'teredo':
      // 2001:0:SSSS:SSSS:flags:port:CCCC:CCCC — the client address is stored inverted.
      return classifyEmbedded('teredo', [ipv4FromWords(p[2], p[3]), ipv4FromWords(~p[6] & 0xffff, ~p[7] & 0xffff)]);
    case 'unicast':
      // ipaddr.js calls everything it has no name for "unicast"; only 2000::/3 is global unicast.
      return (p[0] & 0xe000) === 0x2000 ? 'public' : 'reserved';
    default:
      return range;
  }
}

/**
 * Why `ip` may or may not be reached: `'public'` or the blocking range's name
 * (`loopback`, `private`, `linkLocal`, `uniqueLocal`, `nat64:loopback`, `invalid`, …).
 * IPv6 may be given with or without brackets.
 */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (bare.includes('%')) return 'invalid'; // zone ids: only meaningful for link-local anyway
  const family = net.isIP(bare);
  if (family === 0) return 'invalid';
  const addr = ipaddr.parse(bare);
  return addr.kind() === 'ipv4' ? classifyV4(addr as ipaddr.IPv4) : classifyV6(addr as ipaddr.IPv6);
}

/**
 * True unless `ip` is a public unicast address. IPv4-mapped IPv6 is unmapped first; NAT64, 6to4 and
 * Teredo addresses are judged by the IPv4 they embed. Non-canonical or invalid input is blocked.
 */
export function isBlockedAddress(ip: string): boolean {
  return classifyAddress(ip) !== 'public';
}

/**
 * The address to dial for a checked `ip`: canonical text, IPv4-mapped IPv6 unmapped to IPv4.
 * Only call it for addresses that `net.isIP` accepts.
 */
export function canonicalAddress(ip: string): string {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  return ipaddr.process(bare).toString();
}
