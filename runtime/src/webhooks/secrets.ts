import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Signing secrets of webhook subscriptions. A secret is shown once, when the subscription is made (`whsec_…`, the
 * Standard Webhooks form); the database keeps it encrypted (AES-256-GCM) with a key derived from WEBHOOK_SECRET_KEY
 * (else WEBHOOK_KEY, its former name, else CURSOR_SECRET, else JWT_SECRET): the database alone does not reveal them.
 * Changing that key makes the stored secrets unreadable: deliveries then fail until each subscription is made again.
 */
export class Secrets {
  readonly #key: Buffer;

  constructor(material: string) {
    this.#key = Buffer.from(hkdfSync('sha256', material, 'restsmith', 'webhook signing secrets', 32));
  }

  /** A new signing secret: 24 random bytes. */
  static generate(): string {
    return `whsec_${randomBytes(24).toString('base64')}`;
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), sealed]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64')))
      .join('.');
  }

  /** The secret, or undefined when it was sealed with another key. */
  open(stored: string): string | undefined {
    const [version, iv, tag, sealed] = stored.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || sealed === undefined) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64')), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return undefined;
    }
  }
}
