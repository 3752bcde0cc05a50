import type { Blacklist, Context } from '../domain/corpus.ts';
import type { CorpusRepository } from '../ports/corpus-repository.ts';
import type { BlacklistRepository } from '../ports/group-log.ts';
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';
import { leadingCqType } from './cq-text.ts';
import { GLOBAL_BAN_GROUP } from './limits.ts';
import type { ReplyRecords } from './reply-records.ts';

/** The corpus operations bans need. */
export type BanCorpus = Pick<CorpusRepository, 'appendBan' | 'findBanReplyTarget'>;

export interface BanRequest {
  groupId: number;
  /** The bot whose reply is banned (its records are searched first). */
  botId: number;
  /** The text of the banned reply; '' bans the bot's newest reply. */
  raw: string;
  /** The banning user's QQ number, or `recall by <operator>`. */
  reason: string;
  /** The id of the banned message when known: its reply record is then exact. */
  messageId?: number | null;
}

export interface BanResult {
  contextKeywords: string;
  answerKeywords: string;
  /** First strike: the answer is banned after this context; second: everywhere in the group. */
  strike: 'reserve' | 'active';
}

interface Lists {
  active: Set<string>;
  reserve: Set<string>;
}

export interface BanManagerOptions {
  corpus: BanCorpus;
  records: ReplyRecords;
  repository: BlacklistRepository;
  crossGroupThreshold: () => number;
  clock: Clock;
  log: Log;
  /** Told after each ban is written (other processes on the database must apply it). */
  onBanned?: (groupId: number, contextKeywords: string) => void;
}

/**
 * Reply bans (docs/rules.md#bans). A ban is written into the context (that answer after that
 * phrase, in that group) and struck on the group's blacklist: the first strike reserves the
 * answer keywords, the second bans them in the whole group, and keywords banned in two groups
 * are banned everywhere (group 114514). Blacklists persist through the repository.
 */
export class BanManager {
  readonly #lists = new Map<number, Lists>();
  readonly #options: BanManagerOptions;
  #version = 0;

  constructor(options: BanManagerOptions) {
    this.#options = options;
  }

  /** Changes on every ban, so cached reply bundles from before it are not used again. */
  get version(): number {
    return this.#version;
  }

  /** Union of the stored blacklists into memory, then the global promotion. */
  async load(): Promise<void> {
    for (const stored of await this.#options.repository.list()) this.#absorb(stored);
    this.#promoteShared();
  }

  /**
   * Writes the blacklists (all groups, or the given ones) after merging what is stored, so that
   * processes sharing the database do not erase each other's bans.
   */
  async save(groupIds?: readonly number[]): Promise<void> {
    const repository = this.#options.repository;
    if (groupIds === undefined) {
      for (const stored of await repository.list()) this.#absorb(stored);
    } else {
      for (const groupId of groupIds) {
        const stored = await repository.get(groupId);
        if (stored) this.#absorb(stored);
      }
    }
    for (const groupId of groupIds ?? [...this.#lists.keys()]) {
      const lists = this.#lists.get(groupId);
      if (!lists) continue;
      await repository.put({
        groupId,
        answers: [...lists.active],
        answersReserve: [...lists.reserve].filter((keywords) => !lists.active.has(keywords)),
      });
    }
  }

  /** docs/rules.md#bans: the answer keywords not to use after `context` in `groupId`. */
  bannedFor(context: Context, groupId: number): Set<string> {
    const banned = new Set<string>([...this.#active(GLOBAL_BAN_GROUP), ...this.#active(groupId)]);
    const elsewhere = new Map<string, number>();
    for (const ban of context.bans) {
      if (ban.groupId === groupId || ban.groupId === GLOBAL_BAN_GROUP) banned.add(ban.keywords);
      else elsewhere.set(ban.keywords, (elsewhere.get(ban.keywords) ?? 0) + 1);
    }
    const threshold = this.#options.crossGroupThreshold();
    for (const [keywords, count] of elsewhere) if (count >= threshold) banned.add(keywords);
    return banned;
  }

  /** The group's lists (for inspection and tests). */
  lists(groupId: number): { active: string[]; reserve: string[] } {
    const lists = this.#lists.get(groupId);
    return { active: [...(lists?.active ?? [])], reserve: [...(lists?.reserve ?? [])] };
  }

  /** docs/rules.md#bans: find the reply, write the ban into its context, strike the blacklist. */
  async ban(request: BanRequest): Promise<BanResult | null> {
    const target = await this.#target(request);
    if (!target) return null;
    const { corpus, clock } = this.#options;
    await corpus.appendBan(target.contextKeywords, {
      keywords: target.answerKeywords,
      groupId: request.groupId,
      reason: request.reason,
      time: Math.floor(clock.nowMs() / 1000),
    });
    const strike = this.#strike(request.groupId, target.answerKeywords);
    this.#version++;
    try {
      await this.save([request.groupId, GLOBAL_BAN_GROUP]);
    } catch (error) {
      // The ban is in the context already; the lists are saved again at maintenance and on stop.
      this.#options.log.warn({ error: String(error) }, 'saving the blacklist failed');
    }
    this.#options.onBanned?.(request.groupId, target.contextKeywords);
    return { ...target, strike };
  }

  /**
   * A ban lifted from the console (docs/rules.md#activity-log): the keywords leave the given
   * groups' lists in memory (the store already took them off the stored ones), so the next save
   * does not write them back, and cached reply bundles stop being used.
   */
  forget(keywords: string, groupIds: readonly number[]): void {
    for (const groupId of groupIds) {
      const lists = this.#lists.get(groupId);
      lists?.active.delete(keywords);
      lists?.reserve.delete(keywords);
    }
    this.#version++;
  }

  /** An unban (`lifted`) or its undo (`restored`, reloaded from the store) made in the console. */
  follow(change: { keywords: string; lifted: readonly number[]; restored: readonly number[] }): void {
    this.forget(change.keywords, change.lifted);
    for (const groupId of change.restored) {
      this.reload(groupId).catch((error: unknown) =>
        this.#options.log.warn({ error: String(error), groupId }, 'reloading a restored blacklist failed'),
      );
    }
  }

  /**
   * A ban made by another process on the same database (docs/rules.md#fleet-feed): the group's
   * stored lists and the global ones are merged in, and cached reply bundles stop being used.
   */
  async reload(groupId: number): Promise<void> {
    for (const id of new Set([groupId, GLOBAL_BAN_GROUP])) {
      const stored = await this.#options.repository.get(id);
      if (stored) this.#absorb(stored);
    }
    this.#promoteShared();
    this.#version++;
  }

  async #target(request: BanRequest): Promise<{ contextKeywords: string; answerKeywords: string } | null> {
    const { records, corpus } = this.#options;
    const fromRecord = (record: { preKeywords: string; replyKeywords: string }) => ({
      contextKeywords: record.preKeywords,
      answerKeywords: record.replyKeywords,
    });
    if (request.messageId !== undefined && request.messageId !== null) {
      const exact = records.byMessageId(request.groupId, request.messageId);
      if (exact) return fromRecord(exact);
    }
    const raw = request.raw;
    for (const record of records.search(request.groupId, request.botId)) {
      if (raw === '' || record.reply.includes(raw)) return fromRecord(record);
    }
    if (raw === '') return null;
    const cqType = leadingCqType(raw);
    if (cqType !== '') {
      for (const record of records.search(request.groupId, request.botId)) {
        if (record.reply.includes(cqType)) return fromRecord(record);
      }
    }
    try {
      return await corpus.findBanReplyTarget(request.groupId, raw);
    } catch (error) {
      this.#options.log.warn({ error: String(error) }, 'ban target lookup failed');
      return null;
    }
  }

  #strike(groupId: number, keywords: string): BanResult['strike'] {
    const lists = this.#group(groupId);
    if (lists.active.has(keywords)) return 'active';
    if (!lists.reserve.has(keywords)) {
      lists.reserve.add(keywords);
      return 'reserve';
    }
    lists.active.add(keywords);
    const global = this.#group(GLOBAL_BAN_GROUP);
    if (global.reserve.has(keywords)) global.active.add(keywords);
    else global.reserve.add(keywords);
    return 'active';
  }

  /** Keywords active in two or more groups are banned everywhere. */
  #promoteShared(): void {
    const seen = new Map<string, number>();
    for (const [groupId, lists] of this.#lists) {
      if (groupId === GLOBAL_BAN_GROUP) continue;
      for (const keywords of lists.active) seen.set(keywords, (seen.get(keywords) ?? 0) + 1);
    }
    const global = this.#group(GLOBAL_BAN_GROUP);
    for (const [keywords, groups] of seen) {
      if (groups >= 2) global.active.add(keywords);
      else global.reserve.add(keywords);
    }
  }

  #absorb(stored: Blacklist): void {
    const lists = this.#group(stored.groupId);
    for (const keywords of stored.answers) lists.active.add(keywords);
    for (const keywords of stored.answersReserve) lists.reserve.add(keywords);
  }

  #active(groupId: number): Iterable<string> {
    return this.#lists.get(groupId)?.active ?? [];
  }

  #group(groupId: number): Lists {
    let lists = this.#lists.get(groupId);
    if (!lists) {
      lists = { active: new Set(), reserve: new Set() };
      this.#lists.set(groupId, lists);
    }
    return lists;
  }
}
