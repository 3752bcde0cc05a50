/**
 * Bans that travel (docs/hub.md#moderation): when an answer that came from the community, or
 * that this deployment contributed, is banned (console, chat, ban command), a de-identified
 * report (context keywords and answer keywords, nothing of the group or the member) goes to
 * `POST {api_base}/report`. Reports wait in a small queue kept in `data/community-reports.json`
 * (written on every change, so a stop loses nothing) and are sent off the reply path, retried
 * with a growing delay while the hub cannot take them.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../config/index.ts';
import type { Context } from '../domain/corpus.ts';
import { COMMUNITY_GROUP_ID } from '../domain/deidentify.ts';
import type { Log } from '../common/log.ts';
import { errorMessage } from '../common/errors.ts';
import type { CommunityClient } from './community-client.ts';

export const BAN_REPORTS_FILE = 'community-reports.json';
/** Reports kept waiting at most; past it the oldest is dropped (and counted). */
const PENDING_MAX = 1_000;
const RETRY_FIRST_MS = 15_000;
const RETRY_MAX_MS = 600_000;

interface PendingReport {
  keywords: string;
  answer_keywords: string;
}

export interface BanReportCounters {
  queued: number;
  sent: number;
  /** Refused by the hub for good (a 4xx naming the body): dropped. */
  refused: number;
  retries: number;
  dropped_full: number;
  /** Bans of answers learned here and never contributed: nothing to tell the community. */
  not_shared: number;
}

export interface BanReportsOptions {
  path: string;
  /** Whether the community is wanted at all (no report is kept otherwise). */
  wanted: () => boolean;
  /** Whether this deployment contributes what it learns (its own answers are then in the pool). */
  contributing: () => boolean;
  client: () => CommunityClient | null;
  /** The local store's context (not the merged one: what was imported carries group 0). */
  local: (keywords: string) => Promise<Context | null>;
  log: Log;
}

export class BanReports {
  readonly counters: BanReportCounters = { queued: 0, sent: 0, refused: 0, retries: 0, dropped_full: 0, not_shared: 0 };
  readonly #options: BanReportsOptions;
  #pending: PendingReport[] = [];
  #loaded: Promise<void> | null = null;
  #sending: Promise<void> | null = null;
  #timer: NodeJS.Timeout | undefined;
  #retryMs = 0;
  #stopped = false;
  #write: Promise<void> = Promise.resolve();

  constructor(options: BanReportsOptions) {
    this.#options = options;
  }

  get size(): number {
    return this.#pending.length;
  }

  /** Loads what a previous run left and sends it. */
  start(): void {
    this.#stopped = false;
    void this.#load().then(() => this.wake());
  }

  /**
   * A ban was written: decides whether the community should hear of it and queues the report.
   * Never throws and never waits on the network (called after the ban is stored).
   */
  async banned(contextKeywords: string, answerKeywords: string): Promise<void> {
    const options = this.#options;
    if (!options.wanted() || contextKeywords.trim() === '' || answerKeywords.trim() === '') return;
    try {
      const local = await options.local(contextKeywords);
      const here = local?.answers.filter((answer) => answer.keywords === answerKeywords) ?? [];
      // Not stored here (a merged community answer), imported (group 0), or contributed by us.
      const fromCommunity = here.length === 0 || here.some((answer) => answer.groupId === COMMUNITY_GROUP_ID);
      if (!fromCommunity && !options.contributing()) {
        this.counters.not_shared++;
        return;
      }
      await this.#load();
      if (this.#pending.some((item) => item.keywords === contextKeywords && item.answer_keywords === answerKeywords))
        return;
      if (this.#pending.length >= PENDING_MAX) {
        this.#pending.shift();
        this.counters.dropped_full++;
      }
      this.#pending.push({ keywords: contextKeywords, answer_keywords: answerKeywords });
      this.counters.queued++;
      await this.#save();
      this.wake();
    } catch (error) {
      options.log.warn({ error: errorMessage(error) }, 'queueing a community ban report failed');
    }
  }

  /** Sends what waits now (a credential just arrived, or a test). */
  wake(): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    clearTimeout(this.#timer);
    this.#sending ??= this.#send().finally(() => {
      this.#sending = null;
    });
    return this.#sending;
  }

  /** Stops retrying; waits for a send in progress and for the file. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#sending;
    await this.#write;
  }

  async #send(): Promise<void> {
    await this.#load();
    const client = this.#options.client();
    if (!client) return;
    while (this.#pending.length > 0 && !this.#stopped) {
      const item = this.#pending[0]!;
      let outcome: 'ok' | 'rejected' | 'retry';
      try {
        outcome = await client.report(item.keywords, item.answer_keywords);
      } catch {
        outcome = 'retry';
      }
      if (outcome === 'retry') {
        this.counters.retries++;
        this.#retryMs = Math.min(RETRY_MAX_MS, this.#retryMs === 0 ? RETRY_FIRST_MS : this.#retryMs * 2);
        this.#timer = setTimeout(() => void this.wake(), this.#retryMs);
        this.#timer.unref();
        return;
      }
      this.#retryMs = 0;
      if (outcome === 'ok') this.counters.sent++;
      else this.counters.refused++;
      this.#pending.shift();
      await this.#save();
    }
  }

  #load(): Promise<void> {
    this.#loaded ??= (async () => {
      try {
        const parsed: unknown = JSON.parse(await readFile(this.#options.path, 'utf8'));
        const items = Array.isArray(parsed) ? parsed : [];
        for (const item of items as unknown[]) {
          if (typeof item !== 'object' || item === null) continue;
          const { keywords, answer_keywords: answer } = item as Record<string, unknown>;
          if (typeof keywords === 'string' && typeof answer === 'string') {
            this.#pending.push({ keywords, answer_keywords: answer });
          }
        }
      } catch {
        // Missing or unreadable: nothing waits.
      }
    })();
    return this.#loaded;
  }

  #save(): Promise<void> {
    const text = `${JSON.stringify(this.#pending, null, 2)}\n`;
    const path = this.#options.path;
    this.#write = this.#write
      .then(async () => {
        await ensurePrivateDir(dirname(path));
        await writeFileAtomic(path, text, { mode: 0o600 });
      })
      .catch((error: unknown) => this.#options.log.warn({ error: errorMessage(error) }, 'saving ban reports failed'));
    return this.#write;
  }
}
