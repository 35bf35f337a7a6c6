import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';

/**
 * Where a webhook may be sent: not to this machine nor to a private network (server-side request forgery), unless
 * WEBHOOK_ALLOW_PRIVATE=true. Every address a host resolves to is checked when the subscription is made, and again
 * when each delivery connects (the connection goes to an address that was checked: no DNS rebinding in between).
 */
const PRIVATE_V4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  PRIVATE_V4.addSubnet(network, prefix, 'ipv4');

/**
 * IPv6: global unicast only (2000::/3), less the ranges that lead to IPv4 addresses (Teredo, 6to4) or to nowhere
 * (documentation). Everything else — loopback, IPv4-mapped and -compatible forms, NAT64, unique and link-local,
 * multicast — is refused. (Separate lists: a BlockList checks an IPv4 address against IPv4-mapped IPv6 rules too.)
 */
const GLOBAL_V6 = new BlockList();
GLOBAL_V6.addSubnet('2000::', 3, 'ipv6');
const TUNNELS_V6 = new BlockList();
for (const [network, prefix] of [
  ['2001::', 32], // Teredo
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4
] as const)
  TUNNELS_V6.addSubnet(network, prefix, 'ipv6');

/** Whether an address is loopback, private, link-local, multicast or otherwise not on the public internet. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return PRIVATE_V4.check(address, 'ipv4');
  if (family === 6) return !GLOBAL_V6.check(address, 'ipv6') || TUNNELS_V6.check(address, 'ipv6');
  return true;
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
      `url resolves to ${refused.address}, a loopback or private address: refused (WEBHOOK_ALLOW_PRIVATE=true allows it)`,
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
          `${hostname} resolves to ${refused.address}, a loopback or private address: refused`,
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
