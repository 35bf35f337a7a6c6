import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { http, type HttpResult } from './project.js';

/** The HS256 secret every end-to-end server runs with. */
export const SECRET = 'an-end-to-end-secret-of-32-bytes-or-more';
const key = new TextEncoder().encode(SECRET);

export interface TokenOptions {
  roles?: string[];
  expires?: string | number;
  notBefore?: string | number;
  secret?: string;
  issuer?: string;
  audience?: string;
}

/** An HS256 token for `subject`, valid for ten minutes unless said otherwise. */
export async function token(subject: string, options: TokenOptions = {}): Promise<string> {
  let jwt = new SignJWT({ roles: options.roles ?? [] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(subject)
    .setIssuedAt()
    .setExpirationTime(options.expires ?? '10m');
  if (options.notBefore !== undefined) jwt = jwt.setNotBefore(options.notBefore);
  if (options.issuer !== undefined) jwt = jwt.setIssuer(options.issuer);
  if (options.audience !== undefined) jwt = jwt.setAudience(options.audience);
  return jwt.sign(options.secret === undefined ? key : new TextEncoder().encode(options.secret));
}

/** An unsigned token (`alg: none`), which every server must refuse. */
export function unsignedToken(subject: string, roles: string[] = []): string {
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: subject, roles, iat: now, exp: now + 600 })}.`;
}

export interface KeyPair {
  /** the public key, for a JWKS */
  jwk: JWK;
  /** a token signed with the private key */
  sign: (subject: string, options?: Pick<TokenOptions, 'roles' | 'issuer' | 'audience'>) => Promise<string>;
}

/** A key pair whose public half is served as a JWKS, and tokens signed with the private half. */
export async function keyPair(alg: 'RS256' | 'ES256', kid: string): Promise<KeyPair> {
  const { publicKey, privateKey } = await generateKeyPair(alg);
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  const sign: KeyPair['sign'] = (subject, options = {}) => {
    let jwt = new SignJWT({ roles: options.roles ?? [] })
      .setProtectedHeader({ alg, kid })
      .setSubject(subject)
      .setExpirationTime('10m');
    if (options.issuer !== undefined) jwt = jwt.setIssuer(options.issuer);
    if (options.audience !== undefined) jwt = jwt.setAudience(options.audience);
    return jwt.sign(privateKey);
  };
  return { jwk, sign };
}

/** `http` with a bearer token. */
export function as(bearer: string) {
  return (method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> =>
    http(method, url, body, { authorization: `Bearer ${bearer}`, ...headers });
}
