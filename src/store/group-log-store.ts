import type { Insertable, Selectable } from 'kysely';
import type { Blacklist, GroupMessage } from '../domain/corpus.ts';
import type { BlacklistRepository, GroupMessageLog } from '../ports/group-log.ts';
import { STORE_CHUNK } from '../common/limits.ts';
import { stripNul } from '../common/text.ts';
import { chunks } from './corpus-programs.ts';
import { exec, type Program } from '../sql/program.ts';
import { readRows, writeOne } from '../sql/engine.ts';
import { bound, template, type Param } from '../sql/query.ts';
import type { BlacklistTable, MessageTable, StoreEngine } from './schema.ts';

type MessageRow = Selectable<MessageTable>;

/** The group message log on either engine. */
export class GroupMessageStore implements GroupMessageLog {
  readonly #recent;

  constructor(private readonly engine: StoreEngine) {
    this.#recent = template((p: Param<{ groupId: number; limit: number }>) =>
      engine.db
        .selectFrom('message')
        .selectAll()
        .where('group_id', '=', p('groupId'))
        .orderBy('time', 'desc')
        .orderBy('id', 'desc')
        .limit(p('limit')),
    );
  }

  async append(messages: readonly GroupMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const db = this.engine.db;
    const batches = chunks(messages.map(toRow), STORE_CHUNK.insertRows);
    await this.engine.run(
      function* (): Program<void> {
        for (const batch of batches) yield* exec(bound(db.insertInto('message').values(batch)));
      },
      { write: true },
    );
  }

  async recent(groupId: number, limit: number): Promise<GroupMessage[]> {
    const query = this.#recent({ groupId, limit });
    const found = await readRows(this.engine, query);
    return found.reverse().map(fromRow);
  }
}

/** Per-group blacklists on either engine; lists are stored as JSON text. */
export class BlacklistStore implements BlacklistRepository {
  constructor(private readonly engine: StoreEngine) {}

  async get(groupId: number): Promise<Blacklist | null> {
    const query = bound(this.engine.db.selectFrom('blacklist').selectAll().where('group_id', '=', groupId));
    const [row] = await readRows(this.engine, query);
    return row ? blacklistFromRow(row) : null;
  }

  async put(blacklist: Blacklist): Promise<void> {
    const values = {
      group_id: blacklist.groupId,
      answers: JSON.stringify(blacklist.answers.map(stripNul)),
      answers_reserve: JSON.stringify(blacklist.answersReserve.map(stripNul)),
    };
    const query = bound(
      this.engine.db
        .insertInto('blacklist')
        .values(values)
        .onConflict((oc) =>
          oc.column('group_id').doUpdateSet({ answers: values.answers, answers_reserve: values.answers_reserve }),
        ),
    );
    await writeOne(this.engine, query);
  }

  async list(): Promise<Blacklist[]> {
    const query = bound(this.engine.db.selectFrom('blacklist').selectAll().orderBy('group_id'));
    return (await readRows(this.engine, query)).map(blacklistFromRow);
  }
}

type BlacklistRow = Pick<Selectable<BlacklistTable>, 'group_id' | 'answers' | 'answers_reserve'>;

function blacklistFromRow(row: BlacklistRow): Blacklist {
  return { groupId: row.group_id, answers: parseList(row.answers), answersReserve: parseList(row.answers_reserve) };
}

function parseList(text: string): string[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function toRow(message: GroupMessage): Insertable<MessageTable> {
  return {
    group_id: message.groupId,
    user_id: message.userId,
    bot_id: message.botId,
    raw_message: stripNul(message.rawMessage),
    is_plain_text: message.isPlainText ? 1 : 0,
    plain_text: stripNul(message.plainText),
    keywords: stripNul(message.keywords),
    sender_name: stripNul(message.senderName),
    message_id: message.messageId,
    reply_to_message_id: message.replyToMessageId,
    time: message.time,
  };
}

function fromRow(row: MessageRow): GroupMessage {
  return {
    groupId: row.group_id,
    userId: row.user_id,
    botId: row.bot_id,
    rawMessage: row.raw_message,
    isPlainText: row.is_plain_text === 1,
    plainText: row.plain_text,
    keywords: row.keywords,
    senderName: row.sender_name,
    messageId: row.message_id,
    replyToMessageId: row.reply_to_message_id,
    time: row.time,
  };
}
