/** Where the AI service is: host and port from its base URL, and whether that is this machine. */
import { isIP } from 'node:net';
import { DEFAULT_AI_PORT } from './limits.ts';

export interface AiEndpoint {
  host: string;
  port: number;
}

/**
 * Host and port of a base URL: an explicit port wins, https without one is 443, http without one
 * is the AI service's usual 9099; a bare `host:port` is read as http. Null for text that names no
 * host.
 */
export function endpointOf(baseUrl: string): AiEndpoint | null {
  const text = baseUrl.trim();
  if (text === '') return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  if (!URL.canParse(withScheme)) return null;
  const url = new URL(withScheme);
  if (url.hostname === '') return null;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : DEFAULT_AI_PORT;
  return { host, port };
}

/** Loopback or "this machine": localhost, 127.0.0.0/8, ::1, and the unspecified addresses. */
export function isLocalHost(host: string): boolean {
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  const family = isIP(name);
  if (family === 4) return name.startsWith('127.') || name === '0.0.0.0';
  if (family === 6) return name === '::1' || name === '::' || /^::ffff:127\./.test(name) || /^(0+:){7}0*1$/.test(name);
  return false;
}
