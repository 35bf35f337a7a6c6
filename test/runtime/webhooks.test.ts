import { describe, expect, it } from 'vitest';
import { checkTarget, isPrivateAddress, parseTarget, TargetError } from '../../runtime/src/webhooks/address.js';
import { Secrets } from '../../runtime/src/webhooks/secrets.js';
import { send } from '../../runtime/src/webhooks/send.js';

describe('isPrivateAddress', () => {
  it.each([
    // public: a receiver may be there
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['198.51.100.7', false],
    ['2606:4700:4700::1111', false],
    ['2a00:1450:4001:80b::200e', false],
    // this machine, private networks, link-local (cloud metadata), multicast, reserved
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['0.0.0.0', true],
    ['10.1.2.3', true],
    ['100.64.0.1', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fc00::1', true],
    ['fd12:3456::1', true],
    ['fec0::1', true],
    ['ff02::1', true],
    // IPv6 forms that lead to an IPv4 address
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::ffff:8.8.8.8', true],
    ['::7f00:1', true],
    ['64:ff9b::7f00:1', true],
    ['64:ff9b:1::7f00:1', true],
    ['2002:7f00:1::', true],
    ['2001::1', true],
    ['2001:db8::1', true],
    // not an address at all
    ['localhost', true],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});

describe('checkTarget', () => {
  it.each([
    'http://127.0.0.1/h',
    'http://127.1/h',
    'http://2130706433/h',
    'http://0x7f.1/h',
    'http://[::1]/h',
    'http://[::ffff:7f00:1]/h',
    'http://localhost:8080/h',
    'http://169.254.169.254/latest/meta-data',
  ])('refuses %s', async (url) => {
    await expect(checkTarget(url, false)).rejects.toThrow(TargetError);
  });

  it('allows a public address, and anything with allowPrivate', async () => {
    await expect(checkTarget('https://8.8.8.8/hook', false)).resolves.toBeUndefined();
    await expect(checkTarget('http://127.0.0.1:9/hook', true)).resolves.toBeUndefined();
  });

  it.each([
    'ftp://example.com/x',
    'file:///etc/passwd',
    'not a url',
    'javascript:alert(1)',
    'https://u:p@example.com/',
  ])('refuses %s', (url) => {
    expect(() => parseTarget(url)).toThrow(TargetError);
  });
});

describe('send', () => {
  it('refuses a private address literal at delivery, where no lookup runs', async () => {
    const attempt = await send('http://127.0.0.1:9/hook', 'whsec_' + 'a'.repeat(32), 'evt_1', '{}', false);
    expect(attempt).toEqual({ status: null, error: expect.stringMatching(/loopback or private/) });
  });
});

describe('Secrets', () => {
  it('seals a secret so that only the same key opens it, each time with a new nonce', () => {
    const secrets = new Secrets('a-key-of-thirty-two-characters-at-least');
    const secret = Secrets.generate();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const [once, twice] = [secrets.seal(secret), secrets.seal(secret)];
    expect(once).not.toBe(twice);
    expect(once).not.toContain(secret.slice(6));
    expect(secrets.open(once)).toBe(secret);
    expect(new Secrets('another-key-of-thirty-two-characters').open(once)).toBeUndefined();
    expect(secrets.open(`${once.slice(0, -4)}AAA=`)).toBeUndefined();
    expect(secrets.open('garbage')).toBeUndefined();
  });
});
