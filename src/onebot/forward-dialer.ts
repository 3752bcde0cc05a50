/**
 * Forward WebSocket: Chorus dials the OneBot v11 WebSocket servers of implementations that cannot
 * reach it (SnowLuma's default, a hosted panel, a bot behind NAT), one link per configured address
 * (`CHORUS_ONEBOT_CONNECT`, forward-link.ts). Each dialled socket becomes the account's connection
 * in the endpoint, with the same events, actions and counters as an accepted one.
 */
import { RateLimitedLog, type Log } from '../common/log.ts';
import { ForwardLink, type SocketAdopter } from './forward-link.ts';
import { maskedUrl, TargetIds, type ForwardTargetStatus } from './forward-target.ts';

export type { ForwardError, ForwardState, ForwardTargetStatus } from './forward-target.ts';
export type { SocketAdopter } from './forward-link.ts';

export interface ForwardDialerOptions {
  readonly adopter: SocketAdopter;
  readonly log: Log;
  /** Unix milliseconds. */
  readonly now: () => number;
  /** For the back-off's jitter; default Math.random. */
  readonly random?: () => number;
}

export class ForwardDialer {
  readonly #options: ForwardDialerOptions;
  readonly #limited: RateLimitedLog;
  readonly #ids = new TargetIds();
  /** By address, in the order configured. */
  #links = new Map<string, ForwardLink>();
  #started = false;
  #closing: Promise<void> | null = null;

  constructor(options: ForwardDialerOptions) {
    this.#options = options;
    this.#limited = new RateLimitedLog(options.log, options.now);
  }

  /** Dials every target (and those set later). */
  start(): void {
    if (this.#closing) return;
    this.#started = true;
    for (const link of this.#links.values()) link.start();
  }

  /**
   * Makes the targets `hrefs`: new ones are dialled, removed ones closed, the rest left as they
   * are (a connected target stays connected). Returns what was done, in words, addresses masked.
   */
  setTargets(hrefs: readonly string[]): string {
    if (this.#closing) return 'stopping';
    const next = new Map<string, ForwardLink>();
    const added: string[] = [];
    for (const href of hrefs) {
      const kept = this.#links.get(href);
      if (kept) {
        next.set(href, kept);
        continue;
      }
      const link = new ForwardLink({
        id: this.#ids.of(href),
        href,
        adopter: this.#options.adopter,
        log: this.#options.log,
        limited: this.#limited,
        now: this.#options.now,
        ...(this.#options.random ? { random: this.#options.random } : {}),
      });
      next.set(href, link);
      added.push(maskedUrl(href));
    }
    const removed = [...this.#links.values()].filter((link) => !next.has(link.href));
    this.#links = next;
    for (const link of removed) void link.stop();
    if (this.#started) for (const link of next.values()) link.start();
    if (added.length === 0 && removed.length === 0) return 'forward targets unchanged';
    const words = [
      ...(added.length > 0 ? [`dialling ${added.join(', ')}`] : []),
      ...(removed.length > 0 ? [`closed ${removed.map((link) => maskedUrl(link.href)).join(', ')}`] : []),
    ].join('; ');
    this.#options.log.info({ added: added.length, removed: removed.length }, `OneBot forward targets: ${words}`);
    return words;
  }

  targets(): ForwardTargetStatus[] {
    return [...this.#links.values()].map((link) => link.status());
  }

  /** The configured address behind a console id; undefined when there is none. */
  hrefOf(id: string): string | undefined {
    return [...this.#links.values()].find((link) => link.id === id)?.href;
  }

  /** The console id an address has (or would have). */
  idOf(href: string): string {
    return this.#ids.of(href);
  }

  /** Stops dialling and closes every dialled socket. */
  close(): Promise<void> {
    this.#closing ??= Promise.all([...this.#links.values()].map((link) => link.stop())).then(() => undefined);
    return this.#closing;
  }
}
