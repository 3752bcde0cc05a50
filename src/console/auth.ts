/**
 * Console credentials (docs/rules.md#console-auth): a read token, a write token (equal to the read
 * token unless configured) and a stateless session cookie that records the level it was made
 * with. Tokens are compared as SHA-256 digests with `timingSafeEqual` (equal lengths by
 * construction), and both are always compared, so timing says nothing about which one matched.
 *
 * The session is `v1.<payload>.<signature>`: payload = base64url of `{"v":1,"l":"r"|"w","exp":s}`,
 * signature = base64url HMAC-SHA256 over `v1.<payload>`. The HMAC key is derived from a random
 * secret kept in the data folder AND from both tokens' digests, so changing a token ends every
 * session made before (as the origin does when its password changes).
 */
import * as crypto from 'node:crypto';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { SESSION_TTL_SEC, TOKEN_MAX_CHARS } from './limits.ts';

export type AccessLevel = 'read' | 'write';

export interface ConsoleCredentials {
  readonly readToken: string;
  /** Equal to the read token when no write token is configured. */
  readonly writeToken: string;
  /** Random bytes kept in `console-auth.json`; part of the session key. */
  readonly sessionSecret: Buffer;
}

export interface Session {
  level: AccessLevel;
  /** Unix seconds. */
  expiresAt: number;
}

interface Material {
  source: ConsoleCredentials;
  read: Buffer;
  write: Buffer;
  sessionKey: Buffer;
}

const SESSION_VERSION = 'v1';
const SIGNATURE_BYTES = 32;

/** One-shot `crypto.hash` where Node has it (20.12+): about twice as fast per request. */
const digest: (text: string) => Buffer =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha256', text, 'buffer')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest();

export class ConsoleAuth {
  #material: Material | null = null;

  /**
   * `credentials` is called per check; return the same object while nothing changed (the
   * digests are recomputed only when it is a new object). `nowMs` is wall time.
   */
  constructor(
    private readonly credentials: () => ConsoleCredentials,
    private readonly nowMs: () => number,
  ) {}

  /** The level a presented token grants, or null. */
  levelOfToken(token: string): AccessLevel | null {
    if (token.length === 0 || token.length > TOKEN_MAX_CHARS) return null;
    const material = this.#current();
    const presented = digest(token);
    const isWrite = timingSafeEqual(presented, material.write);
    const isRead = timingSafeEqual(presented, material.read);
    if (isWrite) return 'write';
    return isRead ? 'read' : null;
  }

  issueSession(level: AccessLevel): { value: string; session: Session } {
    const expiresAt = Math.floor(this.nowMs() / 1000) + SESSION_TTL_SEC;
    const payload = Buffer.from(JSON.stringify({ v: 1, l: level === 'write' ? 'w' : 'r', exp: expiresAt })).toString(
      'base64url',
    );
    const signed = `${SESSION_VERSION}.${payload}`;
    return { value: `${signed}.${this.#sign(signed).toString('base64url')}`, session: { level, expiresAt } };
  }

  /** The session a cookie value carries, or null when it is malformed, forged or expired. */
  verifySession(value: string): Session | null {
    if (value.length > TOKEN_MAX_CHARS) return null;
    const parts = value.split('.');
    if (parts.length !== 3 || parts[0] !== SESSION_VERSION) return null;
    const [, payload = '', signature = ''] = parts;
    const presented = Buffer.from(signature, 'base64url');
    // Only the canonical spelling: base64url's last character has spare bits.
    if (presented.length !== SIGNATURE_BYTES || presented.toString('base64url') !== signature) return null;
    if (!timingSafeEqual(presented, this.#sign(`${SESSION_VERSION}.${payload}`))) return null;
    let body: unknown;
    try {
      body = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return null;
    }
    if (typeof body !== 'object' || body === null) return null;
    const { v, l, exp } = body as { v?: unknown; l?: unknown; exp?: unknown };
    if (v !== 1 || (l !== 'r' && l !== 'w') || typeof exp !== 'number') return null;
    if (exp * 1000 <= this.nowMs()) return null;
    return { level: l === 'w' ? 'write' : 'read', expiresAt: exp };
  }

  #sign(text: string): Buffer {
    return createHmac('sha256', this.#current().sessionKey).update(text, 'utf8').digest();
  }

  #current(): Material {
    const source = this.credentials();
    if (this.#material?.source === source) return this.#material;
    const read = digest(source.readToken);
    const write = digest(source.writeToken);
    const sessionKey = createHmac('sha256', source.sessionSecret)
      .update('chorus-console-session\0')
      .update(read)
      .update(write)
      .digest();
    this.#material = { source, read, write, sessionKey };
    return this.#material;
  }
}
