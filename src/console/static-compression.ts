/**
 * Compressed answers for the web console's files (docs/console-server.md#compression): brotli
 * when the browser accepts it, else gzip. A build ships `<file>.br` and `<file>.gz` beside each
 * text file (web/vite.config.ts writes them); a file without them (an installed console release
 * of an older build) is compressed once on first request and kept in memory, keyed by its path,
 * size and modification time, so a changed file is compressed again. Small files and types that
 * are already compressed (images, fonts) are sent as they are.
 */
import { readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

export type Encoding = 'br' | 'gzip';

/** Below this a compressed answer saves less than its headers cost. */
export const MIN_COMPRESS_BYTES = 1024;
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.map', '.svg', '.txt']);
/** Files compressed at run time kept at most; the console's build has a few dozen. */
const CACHE_LIMIT = 256;

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export function isCompressible(extension: string, bytes: number): boolean {
  return bytes >= MIN_COMPRESS_BYTES && COMPRESSIBLE.has(extension);
}

/** The encoding to answer with from an Accept-Encoding header (q=0 refuses one). */
export function pickEncoding(acceptEncoding: string | string[] | undefined): Encoding | null {
  const text = Array.isArray(acceptEncoding) ? acceptEncoding.join(',') : (acceptEncoding ?? '');
  const accepted = new Set<string>();
  for (const part of text.toLowerCase().split(',')) {
    const [name = '', ...params] = part.trim().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && Number(q.slice(2)) === 0) continue;
    accepted.add(name.trim());
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip') || accepted.has('*')) return 'gzip';
  return null;
}

export function compress(data: Buffer, encoding: Encoding): Promise<Buffer> {
  return encoding === 'br'
    ? brotli(data, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: 11,
          [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
        },
      })
    : gzipAsync(data, { level: 9 });
}

interface Cached {
  readonly size: number;
  readonly mtimeMs: number;
  readonly body: Promise<Buffer>;
}

/** Compressed bodies of files, from the build's siblings or compressed once and kept. */
export class CompressedFiles {
  readonly #cache = new Map<string, Cached>();

  /** The compressed body of `file`, whose size and modification time the caller has read. */
  async body(file: string, info: { size: number; mtimeMs: number }, encoding: Encoding): Promise<Buffer> {
    const sibling = `${file}${encoding === 'br' ? '.br' : '.gz'}`;
    const built = await stat(sibling).catch(() => null);
    // A sibling older than its file belongs to an earlier build: compress the file instead.
    if (built?.isFile() && built.mtimeMs >= info.mtimeMs) return readFile(sibling);
    const key = `${encoding}:${file}`;
    const cached = this.#cache.get(key);
    if (cached && cached.size === info.size && cached.mtimeMs === info.mtimeMs) return cached.body;
    const body = readFile(file).then((data) => compress(data, encoding));
    // A failed compression is not kept: the next request tries again.
    body.catch(() => this.#cache.delete(key));
    if (this.#cache.size >= CACHE_LIMIT) this.#cache.delete(this.#cache.keys().next().value as string);
    this.#cache.set(key, { size: info.size, mtimeMs: info.mtimeMs, body });
    return body;
  }
}
