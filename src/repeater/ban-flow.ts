import type { ActivityRecorder } from '../domain/activity.ts';
import type { GroupChatMessage, GroupRecall } from '../domain/chat.ts';
import type { ChatActions } from '../ports/chat.ts';
import type { Log } from '../common/log.ts';
import type { TaskSet } from '../common/task-set.ts';
import type { BanCommand } from './ban-command.ts';
import type { BanManager, BanResult } from './bans.ts';
import { leadingNickname, mentionsAccount, normaliseRaw, stripEmptyUrl } from './cq-text.ts';
import type { ReplyRecords } from './reply-records.ts';

export interface BanFlowOptions {
  bans: BanManager;
  records: ReplyRecords;
  chat: ChatActions;
  botIds: () => ReadonlySet<number>;
  /** The names an account answers to. */
  nicknames: (selfId: number) => readonly string[];
  /** What to say after a ban ('' says nothing). */
  ack: () => string;
  tasks: TaskSet;
  log: Log;
  /** Each ban is an entry of the activity log (docs/rules.md#activity-log), with who gave it. */
  activity: ActivityRecorder;
  nowSec: () => number;
}

/** How a ban command or a recall ended. */
export type BanOutcome =
  | { banned: true; botId: number; result: BanResult }
  | { banned: false; reason: 'not-addressed' | 'no-target' | 'not-a-bot-message' | 'own-recall' };

interface Quoted {
  raw: string;
  /** Who wrote the quoted message. */
  authorId: number;
  /** The author bot's own id of that message, when it is one of our replies. */
  recordMessageId: number | null;
}

/**
 * The ban triggers (docs/rules.md#bans): "不可以" quoting a bot reply, "不可以发这个" to a bot, and
 * an admin recalling a bot's message. Resolves which bot and which reply, bans it, recalls the
 * quoted message and acknowledges.
 */
export class BanFlow {
  constructor(private readonly options: BanFlowOptions) {}

  /** A ban command from a group member; `not-addressed` when it concerns no bot of ours. */
  async command(message: GroupChatMessage, command: BanCommand): Promise<BanOutcome> {
    const quoted = command.quotedId === null ? null : await this.#quoted(message, command.quotedId);
    const botId = this.#addressedBot(message, quoted);
    if (botId === null) return { banned: false, reason: 'not-addressed' };
    const raw = command.kind === 'latest' ? '' : (quoted?.raw ?? '');
    if (command.kind === 'quoted' && raw.trim() === '') return { banned: false, reason: 'no-target' };
    const result = await this.options.bans.ban({
      groupId: message.groupId,
      botId,
      raw,
      reason: String(message.userId),
      messageId: command.kind === 'quoted' ? (quoted?.recordMessageId ?? null) : null,
    });
    if (command.quotedId !== null) this.#recall(message, botId, command.quotedId, quoted);
    if (!result) return { banned: false, reason: 'no-target' };
    this.#record(message.groupId, { userId: message.userId, name: message.senderName }, botId, result, command.kind);
    this.#acknowledge(botId, message.groupId);
    return { banned: true, botId, result };
  }

  /** An admin or owner recalled a message; only the bot that wrote it acts on it. */
  async recall(recall: GroupRecall): Promise<BanOutcome> {
    if (recall.selfId !== recall.userId) return { banned: false, reason: 'not-a-bot-message' };
    if (recall.operatorId === recall.userId || this.options.botIds().has(recall.operatorId)) {
      return { banned: false, reason: 'own-recall' };
    }
    const record = this.options.records.byMessageId(recall.groupId, recall.messageId);
    let raw = record?.reply ?? '';
    if (!record) {
      const found = await this.#fetch(recall.selfId, recall.messageId, recall.groupId);
      raw = found ? clean(found.rawMessage) : '';
      if (raw.trim() === '') return { banned: false, reason: 'no-target' };
    }
    const result = await this.options.bans.ban({
      groupId: recall.groupId,
      botId: recall.userId,
      raw,
      reason: `recall by ${recall.operatorId}`,
      messageId: recall.messageId,
    });
    if (!result) return { banned: false, reason: 'no-target' };
    this.#record(recall.groupId, { userId: recall.operatorId, name: '' }, recall.userId, result, 'recall');
    this.#acknowledge(recall.userId, recall.groupId);
    return { banned: true, botId: recall.userId, result };
  }

  async #quoted(message: GroupChatMessage, quotedId: number): Promise<Quoted | null> {
    const record = this.options.records.byMessageId(message.groupId, quotedId);
    if (record) return { raw: record.reply, authorId: record.botId, recordMessageId: quotedId };
    const found = await this.#fetch(message.selfId, quotedId, message.groupId);
    return found ? { raw: clean(found.rawMessage), authorId: found.userId, recordMessageId: null } : null;
  }

  /** The bot the command is for: the author of the quoted message, a mentioned bot, or by name. */
  #addressedBot(message: GroupChatMessage, quoted: Quoted | null): number | null {
    const bots = this.options.botIds();
    if (quoted && bots.has(quoted.authorId)) return quoted.authorId;
    for (const botId of bots) if (mentionsAccount(message.rawMessage, botId)) return botId;
    if (message.mentionsSelf || mentionsAccount(message.rawMessage, message.selfId)) return message.selfId;
    if (leadingNickname(message.plainText, this.options.nicknames(message.selfId)) !== undefined) {
      return message.selfId;
    }
    return null;
  }

  async #fetch(selfId: number, messageId: number, groupId: number) {
    try {
      return await this.options.chat.getMessage(selfId, messageId, groupId);
    } catch (error) {
      this.options.log.debug({ error: String(error), messageId }, 'fetching a quoted message failed');
      return null;
    }
  }

  /** The quoted message goes away with the ban (best effort: the bot may lack the right). */
  #recall(message: GroupChatMessage, botId: number, quotedId: number, quoted: Quoted | null): void {
    const [actor, id] = quoted?.recordMessageId != null ? [botId, quoted.recordMessageId] : [message.selfId, quotedId];
    this.options.tasks.run('repeater-ban-recall', async () => {
      try {
        await this.options.chat.deleteMessage(actor, id, message.groupId);
      } catch (error) {
        this.options.log.debug({ error: String(error), messageId: id }, 'recalling a banned message failed');
      }
    });
  }

  /** Not awaited: the entry is written beside the reply path, and a failed write is only logged. */
  #record(
    groupId: number,
    member: { userId: number; name: string },
    botId: number,
    result: BanResult,
    via: BanCommand['kind'] | 'recall',
  ): void {
    this.options.tasks.run('repeater-ban-activity', () =>
      this.options.activity.record({
        kind: 'chat_ban',
        actor: { kind: 'chat', ...member },
        groupId,
        time: this.options.nowSec(),
        contextKeywords: result.contextKeywords,
        answerKeywords: result.answerKeywords,
        params: { via, strike: result.strike, bot_id: botId },
      }),
    );
  }

  #acknowledge(botId: number, groupId: number): void {
    const text = this.options.ack();
    if (text === '') return;
    this.options.tasks.run('repeater-ban-ack', () => this.options.chat.sendGroupMessage(botId, groupId, text));
  }
}

/** A fetched message as the corpus stores it. */
function clean(raw: string): string {
  return stripEmptyUrl(normaliseRaw(raw));
}
