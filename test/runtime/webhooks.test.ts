import { describe, expect, it } from 'vitest';
import { checkTarget, parseTarget, TargetError } from '../../runtime/src/webhooks/address.js';
import { Secrets } from '../../runtime/src/webhooks/secrets.js';
import { send } from '../../runtime/src/webhooks/send.js';

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
    expect(attempt).toEqual({ status: null, error: expect.stringMatching(/loopback, private or special-purpose/) });
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
