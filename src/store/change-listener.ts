/**
 * PostgreSQL's wake-up for the change feed (docs/rules.md#fleet-feed): one connection of its own
 * that LISTENs on the schema's channel and calls `wake` on every notification, so a change made
 * in another process applies here within milliseconds instead of at the next poll. The feed keeps
 * polling: while this connection is down (server restart, network), changes arrive at the poll,
 * and the connection is made again with a growing delay.
 */
import pg from 'pg';
import type { Log } from '../common/log.ts';
import { RateLimitedLog } from '../common/log.ts';

const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 30_000;

/** The channel of the schema the connection's search_path names (test schemas never cross-wake). */
export function changeChannel(schema: string): string {
  return `chorus_change_feed_${schema}`.slice(0, 63);
}

export interface ChangeListenerOptions {
  url: string;
  /** Called for every notification (the feed then polls at once). */
  wake: () => void;
  log: Log;
  monotonicMs: () => number;
  /** Schema to use, when the URL's search_path does not say (tests). */
  schema?: string;
}

export class ChangeListener {
  readonly #options: ChangeListenerOptions;
  readonly #warn: RateLimitedLog;
  #client: pg.Client | undefined;
  #retryMs = RETRY_FIRST_MS;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;
  /** Whether a connection is listening now (tests, /health). */
  listening = false;

  constructor(options: ChangeListenerOptions) {
    this.#options = options;
    this.#warn = new RateLimitedLog(options.log, options.monotonicMs);
  }

  /** Resolves once listening, or after the first failure (then it retries in the background). */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    this.listening = false;
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    const { url, schema } = this.#options;
    const client = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: 5_000,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    this.#client = client;
    client.on('notification', () => this.#options.wake());
    client.on('error', (error) => this.#lost(client, error));
    client.on('end', () => this.#lost(client, new Error('connection ended')));
    try {
      await client.connect();
      const found = await client.query<{ schema: string | null }>('SELECT current_schema() AS schema');
      const channel = changeChannel(found.rows[0]?.schema ?? 'public');
      await client.query(`LISTEN "${channel.replaceAll('"', '""')}"`);
      if (this.#stopped || this.#client !== client) return;
      this.listening = true;
      this.#retryMs = RETRY_FIRST_MS;
      // Changes made while no connection listened: the poll now picks them up.
      this.#options.wake();
    } catch (error) {
      this.#lost(client, error);
    }
  }

  #lost(client: pg.Client, error: unknown): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.listening = false;
    void client.end().catch(() => undefined);
    if (this.#stopped) return;
    this.#warn.warn(
      'change-listener',
      { error: String(error), retry_ms: this.#retryMs },
      'listening for changes from other processes failed; polling meanwhile',
    );
    this.#timer = setTimeout(() => void this.#connect(), this.#retryMs);
    this.#timer.unref();
    this.#retryMs = Math.min(RETRY_MAX_MS, this.#retryMs * 2);
  }
}
