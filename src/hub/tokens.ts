import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { TOKEN_PREFIX, TOKEN_RANDOM_BYTES } from './limits.ts';

/** A new corpus token (`pc_` + 32 random bytes, base64url); returned once, stored only hashed. */
export function newCorpusToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(TOKEN_RANDOM_BYTES).toString('base64url')}`;
}

/** SHA-256 hex of a token: what the database holds and what a presented token is looked up by. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** The token of an `Authorization: Bearer <token>` header, or null when there is none. */
export function bearerToken(header: string | undefined): string | null {
  if (typeof header !== 'string') return null;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Constant-time equality of two secrets (compared as SHA-256 digests, so lengths do not leak). */
export function sameSecret(presented: string, expected: string): boolean {
  const a = createHash('sha256').update(presented, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}
