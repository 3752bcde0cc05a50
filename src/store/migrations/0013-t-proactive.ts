/**
 * Migration 0013_t_proactive: the per-group switch of proactive speech (docs/repeater.md#proactive-speech).
 * NULL follows the global default CHORUS_REPEATER_PROACTIVE_ENABLED; 0/1 is the group's own choice.
 * And the day's count of those lines in `console_daily_stats` (they are not messages received).
 */
import type { Kysely, Migration } from 'kysely';

export function proactiveMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('group_config').addColumn('proactive', 'integer').execute();
      await db.schema
        .alterTable('console_daily_stats')
        .addColumn('replies_proactive', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
