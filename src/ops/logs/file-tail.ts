/**
 * Reading the end of a log file and following it as it grows. Offsets are byte positions; a line's
 * id is the offset just after its line end, so a reader that reconnects with the last id it saw
 * resumes at the next line, none lost or repeated. A file that was truncated or replaced (log
 * rotation) is read again from its start: that is noticed when it shrank below the cursor, when
 * its inode changed, or when the bytes just before the cursor are no longer the ones read there.
 */
import { open, stat } from 'node:fs/promises';
import type { LineBatch, LineSource, SourcedLine } from './line-source.ts';

const NEWLINE = 0x0a;
/** Bytes remembered before the cursor to recognise a file rewritten in place. */
const GUARD_BYTES = 64;

export interface TailOptions {
  /** Bytes read from the end at most. */
  maxBytes: number;
  /** Lines returned at most (the last ones). */
  lines: number;
}

/**
 * The last `lines` complete lines among the last `maxBytes` bytes; when the read starts inside the
 * file, the partial first line is skipped.
 */
export async function tailFile(path: string, options: TailOptions): Promise<string[]> {
  const handle = await open(path, 'r');
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - options.maxBytes);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    let text = buffer.subarray(0, bytesRead);
    if (start > 0) {
      const first = text.indexOf(NEWLINE);
      text = first < 0 ? Buffer.alloc(0) : text.subarray(first + 1);
    }
    const lines = text.toString('utf8').split('\n');
    if (lines.at(-1) === '') lines.pop();
    return lines.slice(-options.lines).map((line) => line.replace(/\r$/, ''));
  } finally {
    await handle.close();
  }
}

export interface FollowOptions {
  /** Resume after this offset (a line id a client saw); null starts near the end. */
  resumeAt: number | null;
  /** Without resume, the first read covers at most this many bytes before the end. */
  initialBytes: number;
  /** Bytes read per step at most. */
  chunkBytes: number;
}

export class FileFollower implements LineSource {
  readonly #path: string;
  readonly #options: FollowOptions;
  #offset: number | null = null;
  #inode: string | null = null;
  #guard: Buffer = Buffer.alloc(0);
  /** How many times the file was found truncated or replaced (for tests and logs). */
  restarts = 0;

  constructor(path: string, options: FollowOptions) {
    this.#path = path;
    this.#options = options;
  }

  /** The current cursor (null before the first read). */
  get offset(): number | null {
    return this.#offset;
  }

  async read(): Promise<LineBatch> {
    let handle;
    try {
      handle = await open(this.#path, 'r');
    } catch (error) {
      // Between a rotation's rename and the new file, or not written yet: nothing to read.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { lines: [], more: false };
      return { error: `cannot read ${this.#path}: ${(error as Error).message}` };
    }
    try {
      const info = await handle.stat();
      const inode = `${info.dev}:${info.ino}`;
      if (this.#offset === null) {
        this.#offset = await this.#startOffset(handle, info.size);
      } else if (inode !== this.#inode || info.size < this.#offset || !(await this.#guardHolds(handle))) {
        this.#restart();
      }
      this.#inode = inode;
      return await this.#readFrom(handle, info.size);
    } finally {
      await handle.close();
    }
  }

  #restart(): void {
    this.#offset = 0;
    this.#guard = Buffer.alloc(0);
    this.restarts++;
  }

  async #startOffset(handle: FileHandleLike, size: number): Promise<number> {
    const resume = this.#options.resumeAt;
    if (resume !== null) {
      // A resume point is valid only where a line ended; else the file changed since.
      if (resume === 0) return 0;
      if (resume <= size && (await byteAt(handle, resume - 1)) === NEWLINE) {
        this.#guard = await readRange(handle, Math.max(0, resume - GUARD_BYTES), resume);
        return resume;
      }
      this.restarts++;
      return 0;
    }
    const start = Math.max(0, size - this.#options.initialBytes);
    if (start === 0) return 0;
    // Skip the partial line the window starts in.
    const window = await readRange(handle, start - 1, size);
    const first = window.indexOf(NEWLINE);
    return first < 0 ? size : start + first;
  }

  async #guardHolds(handle: FileHandleLike): Promise<boolean> {
    if (this.#guard.length === 0 || this.#offset === null) return true;
    const now = await readRange(handle, this.#offset - this.#guard.length, this.#offset);
    return now.equals(this.#guard);
  }

  async #readFrom(handle: FileHandleLike, size: number): Promise<LineBatch> {
    const offset = this.#offset ?? 0;
    if (offset >= size) return { lines: [], more: false };
    const chunk = await readRange(handle, offset, Math.min(size, offset + this.#options.chunkBytes));
    let end = chunk.lastIndexOf(NEWLINE) + 1;
    // A line longer than a whole chunk is passed on in pieces rather than stalling the stream.
    const cut = end === 0 && chunk.length === this.#options.chunkBytes;
    if (cut) end = chunk.length;
    const lines: SourcedLine[] = [];
    let lineStart = 0;
    for (let index = 0; index < end; index++) {
      if (chunk[index] !== NEWLINE && !(cut && index === end - 1)) continue;
      const stop = chunk[index] === NEWLINE ? index : index + 1;
      const text = chunk.subarray(lineStart, stop).toString('utf8').replace(/\r$/, '');
      lines.push({ id: offset + index + 1, text });
      lineStart = index + 1;
    }
    this.#offset = offset + end;
    const kept = chunk.subarray(Math.max(0, end - GUARD_BYTES), end);
    this.#guard = end >= GUARD_BYTES ? Buffer.from(kept) : Buffer.concat([this.#guard, kept]).subarray(-GUARD_BYTES);
    // More only when this read ended on a full chunk: a partial last line waits for its end.
    return { lines, more: end > 0 && this.#offset < size };
  }
}

type FileHandleLike = Awaited<ReturnType<typeof open>>;

async function readRange(handle: FileHandleLike, from: number, to: number): Promise<Buffer> {
  const length = Math.max(0, to - from);
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, from);
  return buffer.subarray(0, bytesRead);
}

async function byteAt(handle: FileHandleLike, position: number): Promise<number | undefined> {
  return (await readRange(handle, position, position + 1))[0];
}

/** Whether a path names an existing regular file. */
export async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
