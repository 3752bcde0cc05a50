/**
 * Migration 0014_s_catchphrases: the group's own voice (docs/agent-catchphrases.md). Phrases mined
 * from a group's corpus wait as candidates until the console approves or rejects them; only
 * approved ones reach the model. One row per account (0: any account), group and phrase: the
 * unique key lets two processes mine at once without duplicates, and keeps a rejected phrase
 * rejected, so it is never proposed again.
 */
import type { Kysely, Migration } from 'kysely';
import type { EngineKind } from '../../sql/engine.ts';

export function catchphrasesMigration(kind: EngineKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const table = db.schema.createTable('agent_catchphrase');
      await (
        kind === 'sqlite'
          ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
          : table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      )
        .addColumn('self_id', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('group_id', 'bigint', (c) => c.notNull())
        .addColumn('text', 'text', (c) => c.notNull())
        // md5 of the text: the key compares a fixed-length hash (docs/rules.md#store-keys).
        .addColumn('text_hash', 'text', (c) => c.notNull())
        // candidate | active | rejected
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('candidate'))
        // How often the group said it (sum of its answer counts) and after how many phrases.
        .addColumn('count', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('contexts', 'integer', (c) => c.notNull().defaultTo(0))
        // local | shared (the community's answers, mined only when the operator chose to)
        .addColumn('source', 'text', (c) => c.notNull().defaultTo('local'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('mined_at', 'bigint', (c) => c.notNull())
        .addColumn('resolved_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('resolved_by', 'text', (c) => c.notNull().defaultTo(''))
        // The activity entry of the latest approve or reject: its undo marks that entry undone.
        .addColumn('activity_id', 'bigint', (c) => c.notNull().defaultTo(0))
        .addUniqueConstraint('uq_agent_catchphrase_self_group_hash', ['self_id', 'group_id', 'text_hash'])
        .execute();
      // The console lists by group and status; the prompt reads a group's approved phrases.
      await db.schema
        .createIndex('ix_agent_catchphrase_group_status')
        .on('agent_catchphrase')
        .columns(['group_id', 'status', 'count'])
        .execute();
      await db.schema
        .createIndex('ix_agent_catchphrase_status_id')
        .on('agent_catchphrase')
        .columns(['status', 'id'])
        .execute();
    },
  };
}
