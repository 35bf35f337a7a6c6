import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkTarget, guardedLookup, isPrivateAddress, TargetError } from '../../runtime/src/webhooks/address.js';

// the host's own addresses, as the code under test reads them: the machine's, unless a test says otherwise
vi.mock('node:os', async (original) => {
  const os = await original<typeof import('node:os')>();
  return { ...os, networkInterfaces: vi.fn(os.networkInterfaces) };
});
afterEach(() => vi.mocked(networkInterfaces).mockReset());

/** An interface of the host with these addresses. */
const hostWith = (...addresses: string[]): void => {
  vi.mocked(networkInterfaces).mockReturnValue({
    eth0: addresses.map(
      (address) =>
        ({
          address,
          netmask: address.includes(':') ? 'ffff:ffff:ffff:ffff::' : '255.255.255.0',
          family: address.includes(':') ? 'IPv6' : 'IPv4',
          mac: '02:00:00:00:00:01',
          internal: false,
          cidr: null,
          scopeid: 0,
        }) as NetworkInterfaceInfo,
    ),
  });
};

describe('isPrivateAddress', () => {
  it.each([
    // public: a receiver may be there
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['93.184.216.34', false],
    ['192.0.3.1', false], // beside the documentation and relay blocks, outside them
    ['192.88.100.1', false],
    ['198.51.101.7', false],
    ['203.0.114.9', false],
    ['2606:4700:4700::1111', false],
    ['2a00:1450:4001:80b::200e', false],
    ['2001:200::1', false], // just past 2001::/23
    ['3fff:1000::1', false], // just past 3fff::/20
    ['::ffff:8.8.8.8', false], // IPv4-mapped: as its IPv4 address
    // documentation, relay, benchmarking, ORCHID (the IANA special-purpose registries)
    ['192.0.2.1', true],
    ['198.51.100.7', true],
    ['203.0.113.9', true],
    ['192.88.99.1', true],
    ['198.18.0.1', true],
    ['3fff::1', true],
    ['3fff:fff:ffff::1', true],
    ['2001:2::1', true],
    ['2001:2:0:ffff::1', true],
    ['2001:10::1', true],
    ['2001:1f:ffff::1', true],
    ['2001:db8::1', true],
    ['100::1', true],
    // this machine, private networks, link-local (cloud metadata), multicast, reserved
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['0.0.0.0', true],
    ['10.1.2.3', true],
    ['100.64.0.1', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.0.0.8', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['224.0.0.1', true],
    ['240.0.0.1', true],
    ['255.255.255.255', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fe80::1%eth0', true],
    ['fc00::1', true],
    ['fd12:3456::1', true],
    ['fec0::1', true],
    ['ff02::1', true],
    ['4000::1', true], // outside 2000::/3, the only global unicast IANA allocates
    // IPv6 forms that lead to an IPv4 address: by the address they lead to, or refused
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:10.0.0.1', true],
    ['::ffff:192.0.2.1', true],
    ['::ffff:0:8.8.8.8', true],
    ['::7f00:1', true],
    ['::8.8.8.8', true],
    ['64:ff9b::7f00:1', true],
    ['64:ff9b:1::7f00:1', true],
    ['2002:7f00:1::', true],
    ['2001::1', true],
    // not an address at all
    ['localhost', true],
    ['127.1', true],
    ['', true],
  ])('%s → %s', (address, want) => {
    expect(isPrivateAddress(address)).toBe(want);
  });

  it('refuses every address of this machine’s own interfaces', () => {
    const own = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
    expect(own.length).toBeGreaterThan(0);
    for (const { address } of own) expect(isPrivateAddress(address), address).toBe(true);
  });

  it('refuses the host’s own public addresses, in each of their forms, and no other public one', () => {
    hostWith('93.184.216.34', '2a01:4f8:c0c:1234::1');
    for (const address of [
      '93.184.216.34',
      '::ffff:93.184.216.34',
      '2a01:4f8:c0c:1234::1',
      '2a01:4f8:c0c:1234:0:0:0:1',
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ['93.184.216.35', '2a01:4f8:c0c:1234::2', '8.8.8.8'])
      expect(isPrivateAddress(address), address).toBe(false);
  });
});

describe('the checks at subscription and at delivery', () => {
  it('refuse the host’s own public address, and a documentation address', async () => {
    hostWith('93.184.216.34');
    await expect(checkTarget('https://93.184.216.34/hook', false)).rejects.toThrow(TargetError);
    await expect(checkTarget('https://[::ffff:93.184.216.34]/hook', false)).rejects.toThrow(TargetError);
    await expect(checkTarget('https://198.51.100.7/hook', false)).rejects.toThrow(TargetError);
    await expect(checkTarget('https://[3fff::1]/hook', false)).rejects.toThrow(TargetError);
    await expect(checkTarget('https://93.184.216.34/hook', true)).resolves.toBeUndefined();
    await expect(checkTarget('https://93.184.216.35/hook', false)).resolves.toBeUndefined();
  });

  it('refuse at connection time a name that resolves to the host itself', async () => {
    const lookup = guardedLookup(false);
    const error = await new Promise<NodeJS.ErrnoException | null>((done) =>
      lookup('localhost', {}, (failure) => done(failure)),
    );
    expect(error?.code).toBe('EPRIVATE');
  });
});
