/**
 * Lines of a byte stream with a cap on a line's length (docs/rules.md#import-limits): a line is
 * held only up to the cap, and the rest of a longer one is read and dropped as it arrives, so one
 * huge line costs at most the cap in memory whatever its size. Node's readline buffers a whole line.
 */

export interface CappedLine {
  /** 1, 2, 3… */
  number: number;
  /** The line without its end (`\n` or `\r\n`); null when it was longer than the cap. */
  text: string | null;
  /** The line's length in bytes (for a dropped line, all of it). */
  bytes: number;
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export async function* cappedLines(chunks: AsyncIterable<Buffer>, maxBytes: number): AsyncGenerator<CappedLine> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let bytes = 0;
  let over = false;
  let number = 0;
  const take = (): CappedLine => {
    number++;
    let text: string | null = null;
    if (!over) {
      const whole = Buffer.concat(held, heldBytes);
      const end = whole.length > 0 && whole[whole.length - 1] === CARRIAGE_RETURN ? whole.length - 1 : whole.length;
      text = whole.toString('utf8', 0, end);
    }
    const line = { number, text, bytes };
    held = [];
    heldBytes = 0;
    bytes = 0;
    over = false;
    return line;
  };
  const hold = (piece: Buffer): void => {
    bytes += piece.length;
    if (over) return;
    if (heldBytes + piece.length > maxBytes) {
      // Past the cap: what was held goes now, the rest of the line is only counted.
      over = true;
      held = [];
      heldBytes = 0;
      return;
    }
    // A copy: a slice would keep the whole chunk it came from alive.
    held.push(Buffer.from(piece));
    heldBytes += piece.length;
  };
  for await (const chunk of chunks) {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE, start); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      hold(chunk.subarray(start, end));
      yield take();
      start = end + 1;
    }
    if (start < chunk.length) hold(chunk.subarray(start));
  }
  if (bytes > 0 || over) yield take();
}
