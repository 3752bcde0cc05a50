/**
 * Unpacks a release archive (`.tar.gz` with one root folder) with Chorus's own tar reader
 * (`tar-reader.ts`), so what is checked is exactly what is written: every member is a relative
 * path under the expected root with no `..`, and only regular files and folders are written (a
 * link could point anywhere; a sparse member unpacks to more than it says). The whole unpacks
 * to at most `maxUnpackedBytes` in at most `maxUnpackedFiles` members, counted from the headers
 * before a byte of the member is written, so a small archive cannot fill the disk
 * (docs/rules.md#archive-bounds). macOS's AppleDouble files (`._name`, metadata of the
 * machine that packed it) are skipped.
 */
import { createReadStream } from 'node:fs';
import { mkdir, open, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { TarFormatError, TarReader, type TarEvent, type TarHeader } from './tar-reader.ts';

export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}

export interface ArchiveLimits {
  maxUnpackedBytes: number;
  maxUnpackedFiles: number;
}

/** Bytes after the end-of-archive blocks that are read and ignored (tar pads to 10 KiB records). */
const TRAILER_BYTES = 1024 * 1024;

/** Unpacks `archive` into `intoDir`; resolves with the path of its root folder. */
export async function unpack(
  archive: string,
  intoDir: string,
  root: string,
  limits: ArchiveLimits,
  signal?: AbortSignal,
): Promise<string> {
  const writer = new MemberWriter(intoDir, root, limits);
  const reader = new TarReader();
  let trailer = 0;
  const file = createReadStream(archive);
  const gunzip = createGunzip();
  file.on('error', (error) => gunzip.destroy(error));
  file.pipe(gunzip);
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      signal?.throwIfAborted();
      if (reader.ended) {
        trailer += chunk.length;
        if (trailer > TRAILER_BYTES) throw new ArchiveError('data after the end of the archive');
        continue;
      }
      for (const event of reader.push(chunk)) await writer.take(event);
    }
    for (const event of reader.finish()) await writer.take(event);
  } catch (error) {
    await writer.abandon();
    if (error instanceof ArchiveError) throw error;
    if (error instanceof TarFormatError) throw new ArchiveError(`not a readable .tar.gz (${error.message})`);
    const name = error instanceof Error ? error.name : '';
    if (name === 'AbortError') throw error;
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('Z_'))
      throw new ArchiveError(`not a readable .tar.gz (${(error as Error).message})`);
    throw error;
  } finally {
    file.destroy();
    gunzip.destroy();
  }
  if (writer.members === 0) throw new ArchiveError('the archive is empty');
  const top = join(intoDir, root);
  const isFolder = await stat(top).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!isFolder) throw new ArchiveError(`the archive has no root folder ${root}/`);
  return top;
}

/** Writes the members the reader finds, after checking each header against the rules above. */
class MemberWriter {
  members = 0;
  #bytes = 0;
  #file: FileHandle | null = null;

  constructor(
    private readonly intoDir: string,
    private readonly root: string,
    private readonly limits: ArchiveLimits,
  ) {}

  async take(event: TarEvent): Promise<void> {
    if (event.kind === 'data') {
      if (this.#file) await this.#file.write(event.bytes);
    } else if (event.kind === 'end-of-member') {
      await this.#close();
    } else if (event.kind === 'header') {
      await this.#begin(event.header);
    }
  }

  async abandon(): Promise<void> {
    await this.#close().catch(() => undefined);
  }

  async #begin(header: TarHeader): Promise<void> {
    const parts = this.#checkedPath(header);
    if (parts.length === 0 && header.type === 'directory') return; // `./` itself
    this.members += 1;
    if (this.members > this.limits.maxUnpackedFiles)
      throw new ArchiveError(`more than ${this.limits.maxUnpackedFiles} members: refused`);
    if (header.type === 'other') {
      const what = header.sparse ? 'a sparse file' : 'not a regular file or folder';
      throw new ArchiveError(`${what}: ${header.path}`);
    }
    this.#bytes += header.size;
    if (this.#bytes > this.limits.maxUnpackedBytes)
      throw new ArchiveError(`unpacks to more than ${this.limits.maxUnpackedBytes} bytes: refused`);
    const target = join(this.intoDir, ...parts);
    if (header.type === 'directory') {
      await mkdir(target, { recursive: true, mode: 0o755 });
      return;
    }
    if (basename(target).startsWith('._')) return; // AppleDouble metadata: the data is read and dropped
    await mkdir(dirname(target), { recursive: true, mode: 0o755 });
    this.#file = await open(target, 'w', (header.mode & 0o111) !== 0 ? 0o755 : 0o644);
  }

  #checkedPath(header: TarHeader): string[] {
    const path = header.path;
    const parts = path.split('/').filter((part) => part !== '' && part !== '.');
    if (path.startsWith('/') || parts.includes('..') || path.includes('\\') || path.includes('\0'))
      throw new ArchiveError(`unsafe member path: ${path}`);
    if (parts.length === 0) {
      if (header.type === 'directory') return parts;
      throw new ArchiveError(`a member without a name`);
    }
    if (parts[0] !== this.root) {
      // A top-level AppleDouble file (`._<root>`) is metadata of the root folder.
      if (parts.length === 1 && header.type === 'file' && parts[0] === `._${this.root}`) return ['._'];
      throw new ArchiveError(`member outside the root folder ${this.root}/: ${path}`);
    }
    return parts;
  }

  async #close(): Promise<void> {
    const file = this.#file;
    this.#file = null;
    await file?.close();
  }
}
