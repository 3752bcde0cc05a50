import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { EngineKind, MigrationSet } from '../sql/engine.ts';
import {
  HOT_KEYWORDS_PREFIX,
  KEYWORDS_PAGE_INDEX,
  KEYWORDS_PAGE_INDEX_NAME,
  MESSAGE_PREFIX_INDEX,
  MESSAGE_PREFIX_INDEX_NAME,
} from './index-expressions.ts';
import { activityLogMigration } from './migrations/0011-activity-log.ts';
import { decisionsMigration } from './migrations/0012-decisions.ts';
import { historySeedMigration } from './migrations/0013-t-history.ts';
import { proactiveMigration } from './migrations/0013-t-proactive.ts';
import { catchphrasesMigration } from './migrations/0014-s-catchphrases.ts';
import { agentMemoryMigration } from './migrations/0014-s-memory.ts';
import { agentTasksMigration } from './migrations/0014-s-tasks.ts';
import { agentChatMigration } from './migrations/0014-s-chat.ts';

/**
 * Migrations for both engines. The only dialect difference is the id column: SQLite needs
 * AUTOINCREMENT so ids never go back (message order is id order), PostgreSQL uses an identity.
 * Append new migrations; never edit an applied one.
 */
function migrations(kind: EngineKind): Record<string, Migration> {
  // Kysely's schema builder is untyped by design (the tables do not exist yet).
  const id = (table: ReturnType<Kysely<unknown>['schema']['createTable']>) =>
    kind === 'sqlite'
      ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      : table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity());

  return {
    '0001_corpus': {
      async up(db: Kysely<unknown>) {
        await id(db.schema.createTable('context'))
          .addColumn('keywords', 'text', (c) => c.notNull())
          .addColumn('keywords_hash', 'text', (c) => c.notNull().unique())
          .addColumn('time', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('trigger_count', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('clear_time', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        // The unique key's leading column serves lookups by context_id, so no separate index.
        await id(db.schema.createTable('context_answer'))
          .addColumn('context_id', 'bigint', (c) => c.notNull().references('context.id').onDelete('cascade'))
          .addColumn('keywords', 'text', (c) => c.notNull())
          .addColumn('keywords_hash', 'text', (c) => c.notNull())
          .addColumn('group_id', 'bigint', (c) => c.notNull())
          .addColumn('count', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('time', 'bigint', (c) => c.notNull().defaultTo(0))
          .addUniqueConstraint('uq_context_answer_ctx_group_kw', ['context_id', 'group_id', 'keywords_hash'])
          .execute();
        await db.schema
          .createIndex('ix_context_answer_ctx_count_time')
          .on('context_answer')
          .columns(['context_id', 'count', 'time'])
          .execute();
        // Serves list_answers_for_group_since and find_ban_reply_target without a table scan.
        await db.schema
          .createIndex('ix_context_answer_group_time')
          .on('context_answer')
          .columns(['group_id', 'time'])
          .execute();
        await id(db.schema.createTable('context_answer_message'))
          .addColumn('answer_id', 'bigint', (c) => c.notNull().references('context_answer.id').onDelete('cascade'))
          .addColumn('message', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('ix_context_answer_message_answer_id_id')
          .on('context_answer_message')
          .columns(['answer_id', 'id'])
          .execute();
        await id(db.schema.createTable('context_ban'))
          .addColumn('context_id', 'bigint', (c) => c.notNull().references('context.id').onDelete('cascade'))
          .addColumn('keywords', 'text', (c) => c.notNull())
          .addColumn('group_id', 'bigint', (c) => c.notNull())
          .addColumn('reason', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('time', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema.createIndex('ix_context_ban_context_id').on('context_ban').column('context_id').execute();

        await id(db.schema.createTable('message'))
          .addColumn('group_id', 'bigint', (c) => c.notNull())
          .addColumn('user_id', 'bigint', (c) => c.notNull())
          .addColumn('bot_id', 'bigint', (c) => c.notNull())
          .addColumn('raw_message', 'text', (c) => c.notNull())
          .addColumn('is_plain_text', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('plain_text', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('keywords', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('sender_name', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('message_id', 'bigint')
          .addColumn('reply_to_message_id', 'bigint')
          .addColumn('time', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema.createIndex('ix_message_time').on('message').column('time').execute();
        await db.schema.createIndex('ix_message_group_time').on('message').columns(['group_id', 'time']).execute();
        await db.schema
          .createIndex('ix_message_group_user_time')
          .on('message')
          .columns(['group_id', 'user_id', 'time'])
          .execute();

        await id(db.schema.createTable('blacklist'))
          .addColumn('group_id', 'bigint', (c) => c.notNull().unique())
          .addColumn('answers', 'text', (c) => c.notNull().defaultTo(sql`'[]'`))
          .addColumn('answers_reserve', 'text', (c) => c.notNull().defaultTo(sql`'[]'`))
          .execute();
      },
    },

    /**
     * Local hot keywords (docs/rules.md#local-hot): the sum of a context's answer counts is kept on
     * the context row by every write, so the global ranking is an index walk instead of an
     * aggregate over every answer. bigint: a sum of many integer counts may exceed 2^31.
     */
    '0002_answer_count_sum': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable('context')
          .addColumn('answer_count_sum', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        // Backfill before the index exists. Measured at 1,000,000 contexts / 3.5 M answers: SQLite
        // 1.2 s correlated (2.3 s as a join), PostgreSQL 20 s as a join (36 s correlated).
        if (kind === 'sqlite') {
          await sql`UPDATE context SET answer_count_sum =
              (SELECT COALESCE(SUM(a.count), 0) FROM context_answer a WHERE a.context_id = context.id)
            WHERE EXISTS (SELECT 1 FROM context_answer a WHERE a.context_id = context.id)`.execute(db);
        } else {
          await sql`UPDATE context SET answer_count_sum = s.total
            FROM (SELECT context_id, SUM(count) AS total FROM context_answer GROUP BY context_id) AS s
            WHERE context.id = s.context_id`.execute(db);
        }
        // Serves ORDER BY answer_count_sum DESC, keywords ASC ... LIMIT as a plain index walk. The
        // keywords are indexed by a bounded prefix: a whole key may exceed PostgreSQL's btree entry
        // limit (docs/rules.md#store-keys); ties on the prefix are few and sorted after the walk.
        await db.schema
          .createIndex('ix_context_answer_count_sum')
          .on('context')
          .expression(sql.raw(`answer_count_sum DESC, ${HOT_KEYWORDS_PREFIX[kind]}`))
          .execute();
        // Serves the per-group score (SUM(count) of one group's answers per context) from the index
        // alone, in context order, so a scan over a context id window is one index range.
        await db.schema
          .createIndex('ix_context_answer_group_ctx_count')
          .on('context_answer')
          .columns(['group_id', 'context_id', 'count'])
          .execute();
      },
    },

    /**
     * Per-account bot settings edited in the console (PUT /api/bot-configs/{account}). Lists are
     * JSON text and flags 0/1, as elsewhere, so both engines return the same shapes.
     */
    '0003_bot_config': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('bot_config')
          .addColumn('account', 'bigint', (c) => c.primaryKey())
          .addColumn('admins', 'text', (c) => c.notNull().defaultTo(sql`'[]'`))
          .addColumn('disabled_plugins', 'text', (c) => c.notNull().defaultTo(sql`'[]'`))
          .addColumn('auto_accept_friend', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('auto_accept_group', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('security', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('nicknames', 'text', (c) => c.notNull().defaultTo(sql`'[]'`))
          .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
      },
    },

    /**
     * History backfill pages the corpus in keywords order (docs/rules.md#backfill; src/store/keywords-page.ts).
     * The keywords are indexed by a bounded prefix (PostgreSQL's btree entry limit), then the id.
     */
    '0004_context_keywords_prefix': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createIndex(KEYWORDS_PAGE_INDEX_NAME)
          .on('context')
          .expression(sql.raw(KEYWORDS_PAGE_INDEX[kind]))
          .execute();
      },
    },

    /**
     * Console corpus moderation (src/store/moderation-store.ts): the log with undo snapshots, and a
     * bounded prefix index on answer messages so a prefix search of answer text is a range read.
     */
    '0005_moderation': {
      async up(db: Kysely<unknown>) {
        await id(db.schema.createTable('moderation_log'))
          .addColumn('time', 'bigint', (c) => c.notNull())
          .addColumn('actor', 'text', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('context_id', 'bigint', (c) => c.notNull())
          .addColumn('context_keywords', 'text', (c) => c.notNull())
          .addColumn('answer_keywords', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('group_id', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('snapshot', 'text', (c) => c.notNull())
          .addColumn('undone_at', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('undone_by', 'text', (c) => c.notNull().defaultTo(''))
          .execute();
        await db.schema
          .createIndex(MESSAGE_PREFIX_INDEX_NAME)
          .on('context_answer_message')
          .expression(sql.raw(MESSAGE_PREFIX_INDEX[kind]))
          .execute();
      },
    },

    /** Changes other processes sharing the database must apply at once (src/store/change-feed.ts). */
    '0006_change_feed': {
      async up(db: Kysely<unknown>) {
        await id(db.schema.createTable('change_feed'))
          .addColumn('origin', 'text', (c) => c.notNull())
          .addColumn('topic', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('time', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('ix_change_feed_time').on('change_feed').column('time').execute();
      },
    },

    /** Where an answer was used: per context, answer and group, when it was last sent (reply-usage.ts). */
    '0007_reply_usage': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('reply_usage')
          .addColumn('context_hash', 'text', (c) => c.notNull())
          .addColumn('answer_hash', 'text', (c) => c.notNull())
          .addColumn('group_id', 'bigint', (c) => c.notNull())
          .addColumn('last_sent', 'bigint', (c) => c.notNull())
          .addColumn('sent_count', 'integer', (c) => c.notNull())
          .addPrimaryKeyConstraint('pk_reply_usage', ['context_hash', 'answer_hash', 'group_id'])
          .execute();
      },
    },

    /** Daily counts per account and group for the console (daily-stats.ts), added to in batches. */
    '0008_console_daily_stats': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('console_daily_stats')
          .addColumn('day', 'text', (c) => c.notNull())
          .addColumn('self_id', 'bigint', (c) => c.notNull())
          .addColumn('group_id', 'bigint', (c) => c.notNull())
          .addColumn('received', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('replies_group', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('replies_cross_group', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('replies_community', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('replies_repeat', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('learn_queued', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('bans', 'integer', (c) => c.notNull().defaultTo(0))
          .addPrimaryKeyConstraint('pk_console_daily_stats', ['day', 'self_id', 'group_id'])
          .execute();
      },
    },
    /** Per-group and per-user controls (src/store/chat-controls-store.ts); NULL override = global value. */
    '0009_group_user_configs': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('group_config')
          .addColumn('group_id', 'bigint', (c) => c.primaryKey())
          .addColumn('learn', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('reply', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('share', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('answer_threshold', 'integer')
          .addColumn('reply_cooldown_sec', 'integer')
          .addColumn('silence_until', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('blocked_user_ids', 'text', (c) => c.notNull().defaultTo('[]'))
          .addColumn('banned', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        await db.schema
          .createTable('user_config')
          .addColumn('user_id', 'bigint', (c) => c.primaryKey())
          .addColumn('banned', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('bot', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('updated_at', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        // The friend and group request inbox (src/store/request-store.ts): one row per account and flag.
        await id(db.schema.createTable('chat_request'))
          .addColumn('self_id', 'bigint', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('sub_type', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('user_id', 'bigint', (c) => c.notNull())
          .addColumn('group_id', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('comment', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('flag', 'text', (c) => c.notNull())
          .addColumn('time', 'bigint', (c) => c.notNull())
          .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
          .addColumn('handled_at', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('handled_by', 'text', (c) => c.notNull().defaultTo(''))
          .addUniqueConstraint('uq_chat_request_self_flag', ['self_id', 'flag'])
          .execute();
        await db.schema
          .createIndex('ix_chat_request_status_time')
          .on('chat_request')
          .columns(['status', 'time'])
          .execute();
      },
    },

    /**
     * Which process of a fleet on one database takes a group message that several accounts
     * received (src/store/message-claims.ts, docs/rules.md#fleet-claims). Rows live minutes.
     */
    '0010_message_claims': {
      async up(db: Kysely<unknown>) {
        // PostgreSQL: UNLOGGED, so a claim costs no WAL flush; a crash empties the table, which
        // at worst lets a message of the last minutes be answered twice.
        const table = db.schema.createTable('message_claims');
        await (kind === 'postgres' ? table.modifyFront(sql`unlogged`) : table)
          .addColumn('claim_key', 'text', (c) => c.primaryKey())
          .addColumn('claimed_by', 'text', (c) => c.notNull())
          .addColumn('claimed_at', 'bigint', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('ix_message_claims_claimed_at').on('message_claims').column('claimed_at').execute();
      },
    },
    '0011_activity_log': activityLogMigration(kind),
    '0012_decisions': decisionsMigration(kind),
    '0013_t_history': historySeedMigration(),
    '0013_t_proactive': proactiveMigration(),
    '0014_s_catchphrases': catchphrasesMigration(kind),
    '0014_s_memory': agentMemoryMigration(kind),
    '0014_s_tasks': agentTasksMigration(kind),
    '0014_s_chat': agentChatMigration(kind),
  };
}

export function migrationProvider(kind: EngineKind): MigrationProvider {
  return { getMigrations: async () => migrations(kind) };
}

/** The bot's migration set, with Kysely's default bookkeeping tables (src/store/open-store.ts). */
export function storeMigrations(kind: EngineKind): MigrationSet {
  return { provider: migrationProvider(kind) };
}
