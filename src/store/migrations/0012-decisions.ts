/**
 * Migration 0012: the repeater's decisions, kept for the console's Why page (src/store/decision-log.ts,
 * docs/repeater.md#why). One row per group message decided, with the one cause and its figures;
 * trimmed by age and count in short steps.
 */
import type { Kysely, Migration } from 'kysely';
import type { EngineKind } from '../../sql/engine.ts';

export function decisionsMigration(kind: EngineKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const table = db.schema.createTable('repeater_decision');
      await (
        kind === 'sqlite'
          ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
          : table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      )
        // Unix milliseconds.
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('group_id', 'bigint', (c) => c.notNull())
        .addColumn('self_id', 'bigint', (c) => c.notNull())
        .addColumn('user_id', 'bigint', (c) => c.notNull())
        .addColumn('message_id', 'bigint', (c) => c.notNull())
        .addColumn('sender_name', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('raw_message', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('keywords', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        // {code, params} as JSON: the cause's figures, worded by the console.
        .addColumn('cause', 'text', (c) => c.notNull().defaultTo('{}'))
        // JSON array of the texts sent.
        .addColumn('texts', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('answer_keywords', 'text')
        .addColumn('threshold', 'integer')
        .addColumn('cache', 'text')
        .addColumn('learn', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('latency_us', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // Paging per group, newest first; the trim by age walks ids.
      await db.schema
        .createIndex('ix_repeater_decision_group_id')
        .on('repeater_decision')
        .columns(['group_id', 'id'])
        .execute();
      await db.schema.createIndex('ix_repeater_decision_at').on('repeater_decision').column('at').execute();
    },
  };
}
