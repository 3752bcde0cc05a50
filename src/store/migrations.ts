import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';

export type EngineKind = 'sqlite' | 'postgres';

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
  };
}

export function migrationProvider(kind: EngineKind): MigrationProvider {
  return { getMigrations: async () => migrations(kind) };
}
