/**
 * The checks an implementation's connection request must pass before the WebSocket upgrade:
 * the access token (when one is configured), X-Self-ID and X-Client-Role. Failures are HTTP
 * answers written to the raw socket, as the upgrade has not happened yet.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ClientRole } from './connection.ts';

export type Handshake =
  | { readonly ok: true; readonly selfId: number; readonly role: ClientRole }
  | { readonly ok: false; readonly status: 400 | 401; readonly detail: string };

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Compares a presented token with the configured one in constant time: both are hashed first,
 * so neither the content nor the length of the secret leaks through timing.
 */
export class TokenCheck {
  readonly #expected: Buffer | null;

  constructor(accessToken: string) {
    this.#expected = accessToken === '' ? null : sha256(accessToken);
  }

  get required(): boolean {
    return this.#expected !== null;
  }

  accepts(presented: string | null): boolean {
    if (this.#expected === null) return true;
    if (presented === null) return false;
    return timingSafeEqual(sha256(presented), this.#expected);
  }
}

/**
 * `Authorization: Bearer <token>` (OneBot v11); go-cqhttp sends `Token <token>`; otherwise the
 * `access_token` query parameter.
 */
export function presentedToken(request: IncomingMessage, url: URL): string | null {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^(?:Bearer|Token)\s+(.+)$/i.exec(header.trim()) : null;
  return match?.[1] ?? url.searchParams.get('access_token');
}

const SELF_ID = /^[1-9]\d{0,15}$/;
const ROLES: Readonly<Record<string, ClientRole>> = { universal: 'Universal', event: 'Event', api: 'API' };

export function checkHandshake(request: IncomingMessage, url: URL, tokens: TokenCheck): Handshake {
  if (!tokens.accepts(presentedToken(request, url))) {
    return { ok: false, status: 401, detail: 'missing or wrong access token' };
  }
  const selfIdHeader = request.headers['x-self-id'];
  const selfIdText = typeof selfIdHeader === 'string' ? selfIdHeader.trim() : '';
  const selfId = Number(selfIdText);
  if (!SELF_ID.test(selfIdText) || !Number.isSafeInteger(selfId)) {
    return { ok: false, status: 400, detail: 'X-Self-ID must be the bot account number' };
  }
  const roleHeader = request.headers['x-client-role'];
  // Implementations that predate the header connect as Universal.
  const role = typeof roleHeader === 'string' ? ROLES[roleHeader.trim().toLowerCase()] : 'Universal';
  if (role === undefined) return { ok: false, status: 400, detail: 'X-Client-Role must be Universal, Event or API' };
  return { ok: true, selfId, role };
}

/** Answers a connection request with an HTTP error and closes the socket, as ws itself does. */
export function refuseUpgrade(socket: Duplex, status: number, detail: string): void {
  socket.on('error', () => {});
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = `${detail}\n`;
  const headers = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Connection: close',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...(status === 401 ? ['WWW-Authenticate: Bearer'] : []),
  ];
  socket.once('finish', () => socket.destroy());
  socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}
