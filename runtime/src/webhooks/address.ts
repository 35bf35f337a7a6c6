import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { networkInterfaces } from 'node:os';

/**
 * Where a webhook may be sent: not to this machine nor to a private network (server-side request forgery), unless
 * WEBHOOK_ALLOW_PRIVATE=true. Every address a host resolves to is checked when the subscription is made, and again
 * when each delivery connects (the connection goes to an address that was checked: no DNS rebinding in between).
 *
 * An address may be sent to when ipaddr.js classifies it as `unicast`, that is in none of the special-purpose blocks
 * of its table, an IPv4-mapped IPv6 address as the IPv4 address it stands for; when it is in no block of the
 * additions below; and when it is none of the host's own interfaces' addresses. ipaddr.js 2.5.0's table has every
 * block of the IANA IPv4 and IPv6 Special-Purpose Address Registries that is not globally reachable (loopback,
 * private, shared, link-local, documentation 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32 and
 * 3fff::/20, benchmarking 198.18.0.0/15 and 2001:2::/48, the 6to4 relay 192.88.99.0/24, ORCHID 2001:10::/28, NAT64,
 * Teredo, discard, …), and multicast, broadcast and 240.0.0.0/4.
 */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const ADDITIONS = {
  // the IANA IPv6 Address Space registry: only 2000::/3 is global unicast, the rest is reserved by the IETF (::/96, the
  // deprecated IPv4-compatible addresses, among it) or special (fc00::/7, fe80::/10, ff00::/8); ipaddr.js calls
  // `unicast` whatever its table does not list
  ipv6OutsideGlobalUnicast: (address: ipaddr.IPv6): boolean => !address.match(GLOBAL_UNICAST_V6),
};

/** The host's own addresses, normalised: read at each check (interfaces come and go). */
function ownAddresses(): Set<string> {
  const own = new Set<string>();
  for (const list of Object.values(networkInterfaces())) {
    for (const { address } of list ?? []) {
      if (isIP(address) !== 0) own.add(ipaddr.process(canonical(address)).toNormalizedString());
    }
  }
  return own;
}

/**
 * An address as ipaddr.js should read it. ipaddr.js 2.5.0 reads an IPv6 address with a dotted tail after `::` as
 * IPv4-mapped (`::8.8.8.8`, which is IPv4-compatible `::808:808`, as `::ffff:8.8.8.8`), and glibc prints
 * IPv4-compatible addresses that way: the WHATWG URL parser's serialisation has no dotted tail. A zone (`%eth0`) is
 * dropped: it only follows link-local addresses, refused by their range.
 */
const canonical = (address: string): string =>
  isIP(address) === 6 ? new URL(`http://[${address.replace(/%.*$/s, '')}]`).hostname.slice(1, -1) : address;

/** Whether an address is loopback, private, link-local, multicast, this host's or otherwise not on the public internet. */
export function isPrivateAddress(address: string): boolean {
  if (isIP(address) === 0) return true; // strict dotted or colon forms only: never `127.1`, never a name
  const parsed = ipaddr.process(canonical(address));
  if (parsed.range() !== 'unicast') return true;
  if (parsed instanceof ipaddr.IPv6 && ADDITIONS.ipv6OutsideGlobalUnicast(parsed)) return true;
  return ownAddresses().has(parsed.toNormalizedString());
}

/** A webhook URL refused, with the reason (for a 400, or a delivery's `lastError`). */
export class TargetError extends Error {
  override name = 'TargetError';
}

/** The URL of a subscription, parsed: http(s) only. */
export function parseTarget(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TargetError('url is not an absolute URL');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new TargetError('url must be http or https');
  // they would be shown to whoever lists the webhooks; the signature is what tells a receiver who sent a request
  if (parsed.username !== '' || parsed.password !== '')
    throw new TargetError('url must hold no user name or password');
  return parsed;
}

const resolveAll = (host: string): Promise<LookupAddress[]> =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error === null
        ? resolve(addresses)
        : reject(new TargetError(`cannot resolve ${host}: ${error.code ?? 'error'}`)),
    );
  });

/** Checks every address of the URL's host; resolves when all may be sent to. */
export async function checkTarget(url: string, allowPrivate: boolean): Promise<void> {
  const host = parseTarget(url).hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate) return;
  const addresses = isIP(host) === 0 ? await resolveAll(host) : [{ address: host, family: isIP(host) }];
  const refused = addresses.find(({ address }) => isPrivateAddress(address));
  if (refused !== undefined) {
    throw new TargetError(
      `url resolves to ${refused.address}, a loopback, private or special-purpose address: refused (WEBHOOK_ALLOW_PRIVATE=true allows it)`,
    );
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The `lookup` of a delivery's connection: resolves as Node would, and refuses a private address (unless allowed), so
 * that the address connected to is the one checked.
 */
export function guardedLookup(allowPrivate: boolean) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true, verbatim: true }, (error, addresses) => {
      if (error !== null) return callback(error, []);
      const refused = allowPrivate ? undefined : addresses.find(({ address }) => isPrivateAddress(address));
      if (refused !== undefined) {
        const denied: NodeJS.ErrnoException = new TargetError(
          `${hostname} resolves to ${refused.address}, a loopback, private or special-purpose address: refused`,
        );
        denied.code = 'EPRIVATE';
        return callback(denied, []);
      }
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0];
      return first === undefined
        ? callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), [])
        : callback(null, first.address, first.family);
    });
  };
}
