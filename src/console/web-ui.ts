/**
 * Serves the built web console (web/dist, see web/README.md) at `{base_url}/`:
 * - a file of the build is sent with its type; hashed files under `assets/` are cached for a year
 *   (`immutable`), everything else is revalidated;
 * - any other page path (no file extension) gets index.html, so history-mode routes survive a
 *   reload; a missing file with an extension is a 404;
 * - `{base_url}/api/...` never reaches this handler's fallback: an unknown API path is a JSON 404;
 * - without a build, page paths answer 503 with a hint to run `npm run build`.
 * - text files go out compressed (brotli or gzip, as the browser accepts) from the build's
 *   precompressed siblings or compressed once and kept (static-compression.ts);
 * index.html is built for any base path (relative asset URLs); its `./assets/` references and its
 * `chorus-base` meta are rewritten to the configured base here.
 */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConsoleApp } from './context.ts';
import { compress, CompressedFiles, isCompressible, pickEncoding } from './static-compression.ts';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
};

const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

/**
 * The SPA's page policy: Naive UI injects its styles at run time, hence inline styles. Images may
 * also come from QQ's image servers (thumbnails of stored chat images) and the QQ face pictures'
 * site (web/src/components/corpus/CqText.vue); the page sends no referrer to them.
 */
export const SPA_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: https://koishi.js.org https://*.qpic.cn http://*.qpic.cn https://multimedia.nt.qq.com.cn",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

export interface WebUi {
  /** Whether a build is present (index.html exists). */
  available(): Promise<boolean>;
  /** Sends index.html for a page path (compressed when the request accepts it). */
  sendIndex(reply: FastifyReply, request?: FastifyRequest): Promise<FastifyReply>;
}

/**
 * `installed` names an installed web-console release to serve instead of `root` (src/ops/update
 * names one only while it is newer than the bundled console, docs/rules.md#web-console-pick). It
 * is asked per request: a path through the release's `current` link, so an update is served at
 * once.
 */
export function webUiRoutes(
  app: ConsoleApp,
  baseUrl: string,
  apiPrefix: string,
  root: string | null,
  installed?: () => Promise<string | null>,
): WebUi {
  const bundled = root === null ? null : resolve(root);
  const folder = async () => {
    const release = installed ? await installed().catch(() => null) : null;
    return release === null ? bundled : resolve(release);
  };
  const available = async () => {
    const dir = await folder();
    return dir !== null && (await isFile(join(dir, 'index.html')));
  };

  const compressed = new CompressedFiles();

  const sendIndex = async (reply: FastifyReply, request?: FastifyRequest) => {
    const dir = await folder();
    const indexFile = dir === null ? null : join(dir, 'index.html');
    if (indexFile === null || !(await isFile(indexFile))) {
      return reply
        .code(503)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(
          '<!doctype html><meta charset="utf-8"><title>Chorus</title>' +
            '<p>The web console is not built. Run <code>npm run build</code> and restart.</p>',
        );
    }
    const html = (await readFile(indexFile, 'utf8'))
      .replaceAll('"./assets/', `"${baseUrl}/assets/`)
      .replace(/(<meta name="chorus-base" content=")[^"]*(")/, `$1${baseUrl}$2`);
    reply
      .type('text/html; charset=utf-8')
      .header('cache-control', REVALIDATE)
      .header('content-security-policy', SPA_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('vary', 'accept-encoding');
    const encoding = request ? pickEncoding(request.headers['accept-encoding']) : null;
    const data = Buffer.from(html, 'utf8');
    if (encoding === null || !isCompressible('.html', data.length)) return reply.send(data);
    return reply.header('content-encoding', encoding).send(await compress(data, encoding));
  };

  if (baseUrl !== '') {
    app.get(baseUrl, (request, reply) => {
      const query = request.url.slice(baseUrl.length);
      return reply.redirect(`${baseUrl}/${query}`, 308);
    });
  }

  app.get(`${baseUrl}/*`, async (request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    if (path === apiPrefix || path.startsWith(`${apiPrefix}/`)) {
      const params = { method: 'GET', path };
      return reply.code(404).send({ ok: false, detail: `no such route: GET ${path}`, code: 'no_such_route', params });
    }
    let relative: string;
    try {
      relative = decodeURIComponent(path.slice(baseUrl.length + 1));
    } catch {
      return reply
        .code(400)
        .send({ ok: false, detail: 'path: malformed percent-encoding', code: 'invalid_request', params: {} });
    }
    const dir = await folder();
    if (dir !== null && relative !== '' && !relative.includes('\0')) {
      const file = resolve(dir, relative);
      if (file.startsWith(dir + sep) && (await isFile(file))) {
        const info = await stat(file);
        const extension = extname(file).toLowerCase();
        reply
          .type(TYPES[extension] ?? 'application/octet-stream')
          .header('cache-control', relative.startsWith('assets/') ? IMMUTABLE : REVALIDATE)
          .header('x-content-type-options', 'nosniff');
        const encoding = isCompressible(extension, info.size) ? pickEncoding(request.headers['accept-encoding']) : null;
        if (encoding === null) return reply.header('content-length', info.size).send(createReadStream(file));
        const body = await compressed.body(file, info, encoding);
        return reply
          .header('vary', 'accept-encoding')
          .header('content-encoding', encoding)
          .header('content-length', body.length)
          .send(body);
      }
    }
    // A file that is not there is a 404; any other path is a page of the SPA.
    if (extname(relative) !== '')
      return reply.code(404).send({ ok: false, detail: 'not found', code: 'not_found', params: {} });
    return sendIndex(reply, request);
  });

  return { available, sendIndex };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
