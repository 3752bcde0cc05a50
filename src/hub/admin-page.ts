/**
 * The moderation page (`/admin/`): the `hub-admin.html` entry of the web console's build
 * (web/hub-admin.html, same Vue + Naive UI stack) and its `assets/`. Without a build the page
 * answers 503 naming `npm run build:web`; the admin API works either way.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
};

const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function registerAdminPage(app: FastifyInstance, webRoot: string | null): void {
  const send = async (file: string | null, reply: FastifyReply, immutable: boolean) => {
    if (webRoot === null || file === null) return reply.code(404).send({ detail: 'not found' });
    const info = await stat(file).catch(() => null);
    if (!info?.isFile()) {
      if (file.endsWith('hub-admin.html')) {
        return reply.code(503).send({ detail: 'the moderation page is not built: run npm run build:web' });
      }
      return reply.code(404).send({ detail: 'not found' });
    }
    return reply
      .header('content-type', TYPES[extname(file)] ?? 'application/octet-stream')
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('content-security-policy', PAGE_CSP)
      .header('x-content-type-options', 'nosniff')
      .send(createReadStream(file));
  };
  const page = () => (webRoot === null ? null : join(webRoot, 'hub-admin.html'));
  app.get('/admin', (_request, reply) => reply.redirect('/admin/'));
  app.get('/admin/', (_request, reply) => send(page(), reply, false));
  app.get<{ Params: { '*': string } }>('/admin/assets/*', (request, reply) => {
    if (webRoot === null) return send(null, reply, true);
    const assets = resolve(webRoot, 'assets');
    const file = resolve(assets, request.params['*']);
    // Nothing outside assets/ is sent, however the path is written.
    return send(file.startsWith(assets + sep) ? file : null, reply, true);
  });
}
