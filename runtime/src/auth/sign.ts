import { SignJWT } from 'jose';

/** What a token says: who, with which roles, until when (`1h`, `30m`, or seconds since the epoch). */
export interface TokenClaims {
  subject: string;
  roles?: readonly string[];
  expires?: string | number;
  issuer?: string;
  audience?: string;
}

/**
 * A token the server accepts when it verifies with `secret` (HS256, the algorithm it pins without JWKS_URL): what
 * `npm run token` prints, and what the generated tests call with.
 */
export async function signToken(secret: string, claims: TokenClaims): Promise<string> {
  let token = new SignJWT({ roles: [...(claims.roles ?? [])] })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.subject)
    .setIssuedAt()
    .setExpirationTime(claims.expires ?? '1h');
  if (claims.issuer !== undefined) token = token.setIssuer(claims.issuer);
  if (claims.audience !== undefined) token = token.setAudience(claims.audience);
  return token.sign(new TextEncoder().encode(secret));
}
