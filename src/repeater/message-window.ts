import type { GroupChatMessage } from '../domain/chat.ts';
import { topicTokens } from './cq-text.ts';
import type { MessageText } from './keywords.ts';
import { WINDOW } from './limits.ts';

/** One group message as the window keeps it. */
export interface WindowMessage {
  readonly userId: number;
  readonly rawMessage: string;
  readonly keywords: string;
  readonly isPlainText: boolean;
  /** Unix seconds. */
  readonly time: number;
  /** The message's place in its group's arrival order (`MessageWindow.arrive`). */
  readonly sequence: number;
}

export type Duplicate = 'duplicate-id' | 'duplicate-event';

interface GroupWindow {
  /** Ordered by `sequence`. */
  messages: WindowMessage[];
  nextSequence: number;
  ids: Set<number>;
  events: Set<string>;
  topics: string[];
  touchedMs: number;
}

/**
 * The per-group memory of recent chat (docs/rules.md#rep-intake, #rep-reply, #learn-predecessor, #chat-log): the last messages,
 * the ids and event keys already seen, and the recent topic tokens. Everything is bounded per
 * group, and groups idle for hours are dropped by `prune`.
 */
export class MessageWindow {
  readonly #groups = new Map<number, GroupWindow>();

  constructor(private readonly now: () => number) {}

  get groupCount(): number {
    return this.#groups.size;
  }

  /**
   * Whether this message was seen before in its group: the same message id (the last 100), or
   * the same sender, text and second (the same event delivered to another bot account). A new
   * message is remembered.
   */
  checkSeen(groupId: number, messageId: number, eventKey: string): Duplicate | null {
    const group = this.#group(groupId);
    if (group.ids.has(messageId)) return 'duplicate-id';
    if (group.events.has(eventKey)) return 'duplicate-event';
    remember(group.ids, messageId, WINDOW.seenIdsPerGroup);
    remember(group.events, eventKey, WINDOW.seenIdsPerGroup);
    return null;
  }

  /** Whether the message was seen live, without remembering it (learning from history). */
  hasSeen(groupId: number, messageId: number, eventKey: string): boolean {
    const group = this.#groups.get(groupId);
    return group !== undefined && (group.ids.has(messageId) || group.events.has(eventKey));
  }

  /**
   * The next number of the group's arrival order, taken when a new message arrives, before
   * anything awaits. OneBot times are whole seconds, so several messages share one: arrival, not
   * time, says which came first (docs/rules.md#learn-predecessor).
   */
  arrive(groupId: number): number {
    const group = this.#group(groupId);
    return group.nextSequence++;
  }

  /**
   * The newest message that arrived before `sequence`, among the last few (no database fallback;
   * docs/rules.md#learn-predecessor).
   */
  predecessor(groupId: number, sequence: number): WindowMessage | null {
    const messages = this.#groups.get(groupId)?.messages;
    if (!messages) return null;
    const stop = Math.max(0, messages.length - WINDOW.predecessorTail);
    for (let index = messages.length - 1; index >= stop; index--) {
      const message = messages[index];
      if (message && message.sequence < sequence) return message;
    }
    return null;
  }

  /** Adds a message in arrival order: one that waited (a fleet claim) goes before later arrivals. */
  append(groupId: number, message: WindowMessage): void {
    const { messages } = this.#group(groupId);
    let at = messages.length;
    while (at > 0 && (messages[at - 1] as WindowMessage).sequence > message.sequence) at--;
    messages.splice(at, 0, message);
    if (messages.length > WINDOW.messagesPerGroup) messages.shift();
  }

  /** A group message joins its window; a plain text's tokens join the recent topics. */
  remember(
    { groupId, userId, time }: Pick<GroupChatMessage, 'groupId' | 'userId' | 'time'>,
    sequence: number,
    { rawMessage, keywords, isPlainText, tags }: MessageText,
    nicknames: readonly string[],
  ): void {
    this.append(groupId, { userId, rawMessage, keywords, isPlainText, time, sequence });
    if (isPlainText) this.addTopics(groupId, topicTokens(nicknames, tags));
  }

  /** The newest `limit` messages, oldest first (`keep` filters before counting). */
  recent(groupId: number, limit: number, keep?: (message: WindowMessage) => boolean): WindowMessage[] {
    const messages = this.#groups.get(groupId)?.messages ?? [];
    if (!keep) return messages.slice(-limit);
    const found: WindowMessage[] = [];
    for (let index = messages.length - 1; index >= 0 && found.length < limit; index--) {
      const message = messages[index] as WindowMessage;
      if (keep(message)) found.push(message);
    }
    return found.reverse();
  }

  addTopics(groupId: number, tokens: readonly string[]): void {
    if (tokens.length === 0) return;
    const topics = this.#group(groupId).topics;
    topics.push(...tokens);
    if (topics.length > WINDOW.topicsPerGroup) topics.splice(0, topics.length - WINDOW.topicsPerGroup);
  }

  /** How often `token` is among the group's recent topics. */
  topicCount(groupId: number, token: string): number {
    const topics = this.#groups.get(groupId)?.topics;
    if (!topics) return 0;
    let count = 0;
    for (const topic of topics) if (topic === token) count++;
    return count;
  }

  /** Drops groups untouched for `idleMs`; returns how many. */
  prune(idleMs: number = WINDOW.idleMs): number {
    const cutoff = this.now() - idleMs;
    let dropped = 0;
    for (const [groupId, group] of this.#groups) {
      if (group.touchedMs < cutoff) {
        this.#groups.delete(groupId);
        dropped++;
      }
    }
    return dropped;
  }

  #group(groupId: number): GroupWindow {
    let group = this.#groups.get(groupId);
    if (!group) {
      group = { messages: [], nextSequence: 0, ids: new Set(), events: new Set(), topics: [], touchedMs: 0 };
      this.#groups.set(groupId, group);
    }
    group.touchedMs = this.now();
    return group;
  }
}

/** Adds to an insertion-ordered set, forgetting the oldest beyond `max`. */
function remember<T>(set: Set<T>, value: T, max: number): void {
  set.add(value);
  if (set.size > max) {
    const oldest = set.values().next();
    if (!oldest.done) set.delete(oldest.value);
  }
}
