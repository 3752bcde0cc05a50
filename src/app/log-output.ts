/**
 * Where the log lines go, in the format CHORUS_LOG_FORMAT asks for: JSON lines as written, or
 * human-readable coloured lines (pino-pretty) for a person at a terminal; `auto` is pretty when
 * the destination is a terminal. The format can change while running (a console save): the next
 * line is written the new way. The console's log ring always gets the JSON lines.
 */
import { prettyFactory } from 'pino-pretty';

export type LogFormat = 'auto' | 'json' | 'pretty';

export class LogOutput {
  readonly #destination: NodeJS.WritableStream;
  #prettify: ((line: string) => string) | null = null;

  constructor(destination: NodeJS.WritableStream, format: LogFormat = 'auto') {
    this.#destination = destination;
    this.setFormat(format);
  }

  /** Whether lines are written pretty now. */
  get pretty(): boolean {
    return this.#prettify !== null;
  }

  setFormat(format: LogFormat): void {
    const tty = (this.#destination as { isTTY?: boolean }).isTTY === true;
    const pretty = format === 'pretty' || (format === 'auto' && tty);
    this.#prettify = pretty
      ? prettyFactory({
          colorize: tty,
          ignore: 'pid,hostname,service',
          translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
          singleLine: true,
        })
      : null;
  }

  write(chunk: string): boolean {
    const prettify = this.#prettify;
    if (prettify === null) return this.#destination.write(chunk);
    let out = '';
    for (const line of chunk.split('\n')) if (line !== '') out += prettify(line);
    return this.#destination.write(out);
  }
}
