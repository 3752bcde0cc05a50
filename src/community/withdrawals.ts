/**
 * Withdrawals from the community (docs/hub.md#moderation): every poll asks the hub which answers
 * it withdrew since the last one (`GET {api_base}/withdrawn?since=`) and removes the copies this
 * deployment imported from the community (group 0). An answer learned here in a group is never
 * removed by the hub: it is counted and left alone. Each removal is an entry of the activity log
 * (a delete by the actor `community-hub`, kind hub), from where the console can undo it. The cursor is kept in
 * `data/community-withdrawn.json`.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../config/index.ts';
import type { ActivityActor } from '../domain/activity.ts';
import { COMMUNITY_GROUP_ID } from '../domain/deidentify.ts';
import type { Log } from '../common/log.ts';
import type { CommunityClient } from './community-client.ts';

export const WITHDRAWN_STATE_FILE = 'community-withdrawn.json';
export const WITHDRAWN_ACTOR = 'community-hub';
const HUB_ACTOR: ActivityActor = { kind: 'hub', name: WITHDRAWN_ACTOR };
/** The hub's page size (src/hub/moderation.ts WITHDRAWN_PAGE_MAX). */
const WITHDRAWN_PAGE = 500;

export interface WithdrawalCounters {
  polls: number;
  poll_failures: number;
  /** Withdrawn answers the hub listed. */
  seen: number;
  /** Imported copies removed here. */
  removed: number;
  /** Listed answers this deployment learned itself in a group (kept). */
  kept_learned_here: number;
  /** Listed answers not stored here at all. */
  absent: number;
  last_poll_at: number;
}

/** The moderation store as withdrawals use it (src/store/moderation-store.ts). */
export interface WithdrawalModeration {
  answersNamed(contextKeywords: string, answerKeywords: string): Promise<{ id: number; groupId: number }[]>;
  deleteAnswer(answerId: number, actor: ActivityActor, now: number): Promise<{ keywords: string }>;
}

export interface WithdrawalsOptions {
  path: string;
  client: () => CommunityClient | null;
  moderation: WithdrawalModeration;
  /** Drops the bot's caches for a context changed here. */
  changed: (keywords: string) => void;
  nowSec: () => number;
  log: Log;
}

export class Withdrawals {
  readonly counters: WithdrawalCounters = {
    polls: 0,
    poll_failures: 0,
    seen: 0,
    removed: 0,
    kept_learned_here: 0,
    absent: 0,
    last_poll_at: 0,
  };
  readonly #options: WithdrawalsOptions;
  #since: number | null = null;
  /** Items of the cursor's own second already applied (`since` is inclusive): not counted again. */
  #doneAtCursor = new Set<string>();

  constructor(options: WithdrawalsOptions) {
    this.#options = options;
  }

  /** One poll: every page the hub has since the cursor, applied, then the cursor saved. */
  async poll(): Promise<void> {
    const client = this.#options.client();
    if (!client) return;
    let since = await this.#cursor();
    this.counters.polls++;
    for (let page = 0; page < 20; page++) {
      const answer = await client.withdrawn(since);
      if (!answer) {
        this.counters.poll_failures++;
        return;
      }
      for (const item of answer.items) {
        const key = `${item.withdrawnAt}\u0000${item.keywords}\u0000${item.answerKeywords}`;
        if (this.#doneAtCursor.has(key)) continue;
        await this.#apply(item.keywords, item.answerKeywords);
        if (item.withdrawnAt !== since) this.#doneAtCursor.clear();
        since = Math.max(since, item.withdrawnAt);
        this.#doneAtCursor.add(key);
      }
      // Inclusive `since`: items of the cursor's second are asked again and skipped (done set). An
      // empty page moves the cursor to just before the hub's time; a full page all from one
      // second moves on by one (a hub never withdraws 500 answers in one second by reports).
      const full = answer.items.length >= WITHDRAWN_PAGE;
      const advanced = answer.items.length === 0 ? Math.max(since, answer.asOf - 1) : since;
      const next = full && answer.items.every((item) => item.withdrawnAt === since) ? since + 1 : advanced;
      if (next !== since) this.#doneAtCursor.clear();
      since = next;
      if (!full) break;
    }
    this.counters.last_poll_at = this.#options.nowSec();
    await this.#save(since);
  }

  async #apply(keywords: string, answerKeywords: string): Promise<void> {
    const { moderation, log } = this.#options;
    this.counters.seen++;
    const named = await moderation.answersNamed(keywords, answerKeywords);
    const imported = named.filter((answer) => answer.groupId === COMMUNITY_GROUP_ID);
    if (named.length === 0) this.counters.absent++;
    else if (imported.length < named.length) this.counters.kept_learned_here++;
    for (const answer of imported) {
      await moderation.deleteAnswer(answer.id, HUB_ACTOR, this.#options.nowSec());
      this.counters.removed++;
      this.#options.changed(keywords);
      log.info({ keywords, answer: answerKeywords }, 'community answer withdrawn by the hub: removed here');
    }
  }

  async #cursor(): Promise<number> {
    if (this.#since !== null) return this.#since;
    try {
      const parsed: unknown = JSON.parse(await readFile(this.#options.path, 'utf8'));
      const { since, done } = parsed as { since?: unknown; done?: unknown };
      this.#since = typeof since === 'number' && Number.isFinite(since) && since >= 0 ? Math.floor(since) : 0;
      if (Array.isArray(done)) for (const key of done) if (typeof key === 'string') this.#doneAtCursor.add(key);
    } catch {
      this.#since = 0;
    }
    return this.#since;
  }

  async #save(since: number): Promise<void> {
    this.#since = since;
    await ensurePrivateDir(dirname(this.#options.path));
    const document = { since, done: [...this.#doneAtCursor] };
    await writeFileAtomic(this.#options.path, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
  }
}
