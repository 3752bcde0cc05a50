/**
 * The media cache (issue 30): the bytes of learned pictures, in files of one folder of the data
 * directory, so a picture can be sent again as `base64://` once the implementation has forgotten
 * it (NapCat keeps file names 24 h in memory, lost on restart). Fetched once, off the message path,
 * from the download URL of the sighting that was learned; each picture bounded in size, the whole
 * folder in bytes, the least recently used evicted first. Files are written to a temporary name and
 * renamed, so a reader never sees half a picture; the order of use survives restarts in the files'
 * modification times.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../common/errors.ts';
import type { Log } from '../common/log.ts';
import type { ChatPicture } from '../domain/chat.ts';
import { MEDIA_FETCH_CONCURRENCY, MEDIA_FETCH_QUEUE_MAX, MEDIA_FETCH_TIMEOUT_MS } from './limits.ts';

export interface MediaCacheLimits {
  /** The folder's budget in bytes; 0 turns the cache off (nothing fetched, nothing kept). */
  readonly budgetBytes: number;
  /** A picture larger than this is not kept. */
  readonly pictureMaxBytes: number;
}

export interface MediaCacheOptions extends MediaCacheLimits {
  readonly dir: string;
  readonly log: Log;
  readonly fetchTimeoutMs?: number;
}

/** What the console's database page shows. */
export interface MediaCacheCounters {
  files: number;
  bytes: number;
  budget_bytes: number;
  /** A send asked for a picture's bytes and found them / did not. */
  hits: number;
  misses: number;
  evictions: number;
  fetched: number;
  fetch_failed: number;
  /** Pictures over the size bound, or not fetched because the queue was full. */
  too_large: number;
  skipped: number;
}

const FILE_SUFFIX = '.pic';
const isCacheFile = (name: string): boolean => /^[0-9a-f]{64}\.pic$/.test(name);
const fileNameOf = (identity: string): string => createHash('sha256').update(identity).digest('hex') + FILE_SUFFIX;

export class MediaCache {
  #limits: MediaCacheLimits;
  readonly #dir: string;
  readonly #log: Log;
  readonly #timeoutMs: number;
  /** File name → size, least recently used first (a Map keeps insertion order). */
  readonly #index = new Map<string, number>();
  #bytes = 0;
  readonly #queue: ChatPicture[] = [];
  readonly #queued = new Set<string>();
  readonly #running = new Set<Promise<void>>();
  #started: Promise<void> | null = null;
  #closed = false;
  readonly #counters = { hits: 0, misses: 0, evictions: 0, fetched: 0, fetch_failed: 0, too_large: 0, skipped: 0 };

  constructor(options: MediaCacheOptions) {
    this.#dir = options.dir;
    this.#log = options.log;
    this.#limits = { budgetBytes: options.budgetBytes, pictureMaxBytes: options.pictureMaxBytes };
    this.#timeoutMs = options.fetchTimeoutMs ?? MEDIA_FETCH_TIMEOUT_MS;
  }

  /** Reads the folder once (its files, oldest use first); later calls wait for the same read. */
  start(): Promise<void> {
    this.#started ??= this.#scan();
    return this.#started;
  }

  async #scan(): Promise<void> {
    await mkdir(this.#dir, { recursive: true, mode: 0o700 });
    const found: { name: string; size: number; used: number }[] = [];
    for (const name of await readdir(this.#dir)) {
      const path = join(this.#dir, name);
      if (!isCacheFile(name)) {
        // A temporary file a crash left behind.
        if (name.endsWith('.tmp')) await unlink(path).catch(() => undefined);
        continue;
      }
      const info = await stat(path).catch(() => null);
      if (info?.isFile()) found.push({ name, size: info.size, used: info.mtimeMs });
    }
    found.sort((a, b) => a.used - b.used);
    for (const file of found) {
      this.#index.set(file.name, file.size);
      this.#bytes += file.size;
    }
    await this.#evict();
  }

  /** New bounds at once (a smaller budget evicts now); what changed in words, '' for nothing. */
  applyLimits(limits: MediaCacheLimits): string {
    const same =
      limits.budgetBytes === this.#limits.budgetBytes && limits.pictureMaxBytes === this.#limits.pictureMaxBytes;
    if (same) return '';
    this.#limits = limits;
    void this.#evict();
    return `media cache ${Math.round(limits.budgetBytes / 1024 / 1024)} MiB, pictures up to ${Math.round(limits.pictureMaxBytes / 1024)} KiB`;
  }

  get enabled(): boolean {
    return this.#limits.budgetBytes > 0 && !this.#closed;
  }

  has(identity: string): boolean {
    return this.#index.has(fileNameOf(identity));
  }

  /** Queues the pictures not held yet for a fetch; returns at once. */
  remember(pictures: readonly ChatPicture[]): void {
    if (!this.enabled) return;
    for (const picture of pictures) {
      if (picture.url === '' || this.has(picture.file) || this.#queued.has(picture.file)) continue;
      if (this.#queue.length >= MEDIA_FETCH_QUEUE_MAX) {
        this.#counters.skipped++;
        continue;
      }
      this.#queue.push(picture);
      this.#queued.add(picture.file);
    }
    this.#pump();
  }

  /** The bytes of a picture, or null; counted as a hit or a miss and marked as just used. */
  async bytes(identity: string): Promise<Buffer | null> {
    await this.start();
    const name = fileNameOf(identity);
    const size = this.#index.get(name);
    if (size === undefined) {
      this.#counters.misses++;
      return null;
    }
    try {
      const data = await readFile(join(this.#dir, name));
      this.#touch(name, size);
      this.#counters.hits++;
      return data;
    } catch (error) {
      this.#drop(name);
      this.#counters.misses++;
      this.#log.warn({ err: errorMessage(error) }, 'a media cache file could not be read');
      return null;
    }
  }

  counters(): MediaCacheCounters {
    return { files: this.#index.size, bytes: this.#bytes, budget_bytes: this.#limits.budgetBytes, ...this.#counters };
  }

  /** Resolves when no fetch is queued or running (tests, the demo). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#queue.length = 0;
    this.#queued.clear();
    await this.idle();
  }

  #pump(): void {
    while (this.#running.size < MEDIA_FETCH_CONCURRENCY && this.#queue.length > 0) {
      const picture = this.#queue.shift() as ChatPicture;
      const run: Promise<void> = this.#fetch(picture).finally(() => {
        this.#running.delete(run);
        this.#queued.delete(picture.file);
        this.#pump();
      });
      this.#running.add(run);
    }
  }

  async #fetch(picture: ChatPicture): Promise<void> {
    try {
      await this.start();
      if (!this.enabled || this.has(picture.file)) return;
      const data = await this.#download(picture.url);
      if (data === null) {
        this.#counters.too_large++;
        return;
      }
      await this.#store(fileNameOf(picture.file), data);
      this.#counters.fetched++;
    } catch (error) {
      this.#counters.fetch_failed++;
      // The URL carries the implementation's download key: only the host is logged.
      this.#log.debug({ err: errorMessage(error), host: hostOf(picture.url) }, 'fetching a picture failed');
    }
  }

  /** The body, or null when it is larger than a picture may be (stopped as soon as it is). */
  async #download(url: string): Promise<Buffer | null> {
    const max = this.#limits.pictureMaxBytes;
    const response = await fetch(url, { signal: AbortSignal.timeout(this.#timeoutMs), redirect: 'follow' });
    if (!response.ok || response.body === null) throw new Error(`HTTP ${response.status}`);
    const declared = Number(response.headers.get('content-length') ?? '');
    if (Number.isFinite(declared) && declared > max) {
      await response.body.cancel();
      return null;
    }
    const chunks: Uint8Array[] = [];
    let total = 0;
    for await (const chunk of response.body) {
      total += chunk.byteLength;
      if (total > max) return null;
      chunks.push(chunk);
    }
    if (total === 0) throw new Error('empty body');
    return Buffer.concat(chunks);
  }

  async #store(name: string, data: Buffer): Promise<void> {
    const temp = join(this.#dir, `.${name}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temp, join(this.#dir, name));
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    const before = this.#index.get(name);
    if (before !== undefined) this.#bytes -= before;
    this.#index.delete(name);
    this.#index.set(name, data.length);
    this.#bytes += data.length;
    await this.#evict();
  }

  #touch(name: string, size: number): void {
    this.#index.delete(name);
    this.#index.set(name, size);
    const now = new Date();
    // The order of use survives a restart in the modification time (best effort).
    void utimes(join(this.#dir, name), now, now).catch(() => undefined);
  }

  #drop(name: string): void {
    const size = this.#index.get(name);
    if (size === undefined) return;
    this.#index.delete(name);
    this.#bytes -= size;
  }

  /** Least recently used first, until the folder is within its budget. */
  async #evict(): Promise<void> {
    while (this.#bytes > this.#limits.budgetBytes && this.#index.size > 0) {
      const [name] = this.#index.keys() as IterableIterator<string>;
      if (name === undefined) return;
      this.#drop(name);
      this.#counters.evictions++;
      await unlink(join(this.#dir, name)).catch(() => undefined);
    }
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '?';
  }
}
