/**
 * A reader of tar streams (POSIX ustar and pax, GNU long names): it turns the bytes into headers
 * and data, and nothing else. Names come only from the headers, never from a program's output, so
 * a diagnostic cannot be taken for a member (a clean archive made by another tar, e.g. macOS's
 * with its pax keywords, used to be refused that way). It keeps at most one block and one
 * extended header in memory, however large the archive.
 */

export class TarFormatError extends Error {
  override readonly name = 'TarFormatError';
}

export type TarEntryType = 'file' | 'directory' | 'other';

export interface TarHeader {
  /** The member's path as written (pax `path` and GNU long names applied). */
  path: string;
  type: TarEntryType;
  /** The type flag as written, for a message about an `other`. */
  flag: string;
  size: number;
  mode: number;
  /** Sparse members (GNU `S`, or pax `GNU.sparse.*`) are `other`: their size is not what they unpack to. */
  sparse: boolean;
}

export type TarEvent =
  | { kind: 'header'; header: TarHeader }
  | { kind: 'data'; bytes: Buffer }
  | { kind: 'end-of-member' }
  | { kind: 'end-of-archive' };

const BLOCK = 512;
/** A pax extended header or a GNU long name larger than this is not a release archive's. */
export const MAX_META_BYTES = 64 * 1024;

type State =
  | { at: 'header' }
  | { at: 'data'; left: number; padding: number }
  | { at: 'meta'; flag: string; left: number; padding: number; parts: Buffer[] }
  | { at: 'padding'; left: number }
  | { at: 'end' };

/**
 * Feed it the decompressed bytes in order (`push`), then `finish`; each call returns what it
 * found. After `end-of-archive` the rest is ignored.
 */
export class TarReader {
  #state: State = { at: 'header' };
  #pending: Buffer = Buffer.alloc(0);
  #pax: Map<string, string> = new Map();
  #longName: string | null = null;

  get ended(): boolean {
    return this.#state.at === 'end';
  }

  push(chunk: Buffer): TarEvent[] {
    const events: TarEvent[] = [];
    let input = this.#pending.length > 0 ? Buffer.concat([this.#pending, chunk]) : chunk;
    this.#pending = Buffer.alloc(0);
    while (input.length > 0 && this.#state.at !== 'end') {
      const state = this.#state;
      if (state.at === 'data') {
        const take = Math.min(state.left, input.length);
        if (take > 0) events.push({ kind: 'data', bytes: input.subarray(0, take) });
        input = input.subarray(take);
        state.left -= take;
        if (state.left === 0) {
          events.push({ kind: 'end-of-member' });
          this.#state = { at: 'padding', left: state.padding };
        }
        continue;
      }
      if (state.at === 'padding') {
        const take = Math.min(state.left, input.length);
        input = input.subarray(take);
        state.left -= take;
        if (state.left === 0) this.#state = { at: 'header' };
        continue;
      }
      if (state.at === 'meta') {
        const take = Math.min(state.left, input.length);
        state.parts.push(Buffer.from(input.subarray(0, take)));
        input = input.subarray(take);
        state.left -= take;
        if (state.left === 0) {
          this.#takeMeta(state.flag, Buffer.concat(state.parts));
          this.#state = { at: 'padding', left: state.padding };
        }
        continue;
      }
      if (input.length < BLOCK) {
        this.#pending = Buffer.from(input);
        break;
      }
      const block = input.subarray(0, BLOCK);
      input = input.subarray(BLOCK);
      const event = this.#header(block);
      if (event) events.push(event);
      if (event?.kind === 'header' && this.#state.at === 'data' && this.#state.left === 0) {
        events.push({ kind: 'end-of-member' });
        this.#state = { at: 'header' };
      }
    }
    return events;
  }

  /** Call at the end of the input; throws when the archive stopped mid-member. */
  finish(): TarEvent[] {
    if (this.#state.at === 'end') return [];
    // tar itself accepts a stream that ends at a header boundary without the two zero blocks.
    if (this.#state.at === 'header' && this.#pending.length === 0) {
      this.#state = { at: 'end' };
      return [{ kind: 'end-of-archive' }];
    }
    throw new TarFormatError('the archive ends in the middle of a member');
  }

  #header(block: Buffer): TarEvent | null {
    if (block.every((byte) => byte === 0)) {
      this.#state = { at: 'end' };
      return { kind: 'end-of-archive' };
    }
    if (!checksumOk(block)) throw new TarFormatError('a header has a wrong checksum (not a tar archive?)');
    const flag = String.fromCharCode(block[156] ?? 0);
    const size = numberField(block, 124, 12, 'size');
    const padding = (BLOCK - (size % BLOCK)) % BLOCK;
    if (flag === 'x' || flag === 'g' || flag === 'L' || flag === 'K') {
      if (size > MAX_META_BYTES) throw new TarFormatError(`an extended header of ${size} bytes is too large`);
      this.#state = { at: 'meta', flag, left: size, padding, parts: [] };
      if (size === 0) {
        this.#takeMeta(flag, Buffer.alloc(0));
        this.#state = { at: 'header' };
      }
      return null;
    }
    const pax = this.#pax;
    this.#pax = new Map();
    const longName = this.#longName;
    this.#longName = null;
    const magic = block.subarray(257, 263).toString('latin1');
    // Only POSIX ustar has a prefix field; GNU's format keeps other data at that offset.
    const prefix = magic === 'ustar\0' ? text(block, 345, 155) : '';
    const written = prefix === '' ? text(block, 0, 100) : `${prefix}/${text(block, 0, 100)}`;
    const path = pax.get('path') ?? longName ?? written;
    const paxSize = pax.get('size');
    const realSize = paxSize === undefined ? size : Number(paxSize);
    if (!Number.isSafeInteger(realSize) || realSize < 0) throw new TarFormatError(`bad size of ${path}`);
    const sparse = flag === 'S' || [...pax.keys()].some((key) => key.startsWith('GNU.sparse.'));
    const type: TarEntryType = sparse
      ? 'other'
      : flag === '0' || flag === '\0' || flag === '7'
        ? 'file'
        : flag === '5'
          ? 'directory'
          : 'other';
    const mode = numberField(block, 100, 8, 'mode');
    const dataPadding = (BLOCK - (realSize % BLOCK)) % BLOCK;
    this.#state = { at: 'data', left: realSize, padding: dataPadding };
    return { kind: 'header', header: { path, type, flag, size: realSize, mode, sparse } };
  }

  #takeMeta(flag: string, data: Buffer): void {
    if (flag === 'L') this.#longName = data.toString('utf8').replace(/\0.*$/s, '');
    // A global header (`g`, e.g. git archive's commit id) says nothing about names here.
    else if (flag === 'x') this.#pax = paxRecords(data);
  }
}

/** `<length> <key>=<value>\n` records (POSIX pax). */
function paxRecords(data: Buffer): Map<string, string> {
  const records = new Map<string, string>();
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = Number(data.subarray(at, space).toString('latin1'));
    if (!Number.isSafeInteger(length) || length <= space - at || at + length > data.length)
      throw new TarFormatError('a malformed pax record');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    if (equals > 0) records.set(record.slice(0, equals), record.slice(equals + 1));
    at += length;
  }
  return records;
}

function text(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString('utf8');
}

/** Octal (NUL or space terminated), or GNU's base-256 for large values. */
function numberField(block: Buffer, offset: number, length: number, name: string): number {
  const field = block.subarray(offset, offset + length);
  if (((field[0] ?? 0) & 0x80) !== 0) {
    let value = (field[0] ?? 0) & 0x7f;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
    if (!Number.isSafeInteger(value)) throw new TarFormatError(`a header's ${name} is out of range`);
    return value;
  }
  const digits = field
    .toString('latin1')
    .replace(/[\0 ]+$/g, '')
    .trim();
  if (digits === '') return 0;
  if (!/^[0-7]+$/.test(digits)) throw new TarFormatError(`a header's ${name} is not a number`);
  return parseInt(digits, 8);
}

function checksumOk(block: Buffer): boolean {
  const stored = numberFieldSafe(block, 148, 8);
  let unsigned = 0;
  let signed = 0;
  for (let index = 0; index < BLOCK; index++) {
    const byte = index >= 148 && index < 156 ? 0x20 : (block[index] ?? 0);
    unsigned += byte;
    signed += byte > 127 ? byte - 256 : byte;
  }
  return stored === unsigned || stored === signed;
}

function numberFieldSafe(block: Buffer, offset: number, length: number): number | null {
  try {
    return numberField(block, offset, length, 'checksum');
  } catch {
    return null;
  }
}
