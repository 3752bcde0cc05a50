/**
 * Migration 0013 (learning from history, docs/guide/groups.md#learning-from-history): two
 * columns of `group_config`. `history_seed` 1: learn from the group's history when it is
 * switched on or an account joins (off by default); `history_seeded_until`: unix seconds up to
 * which a seed has learned the group's history (0: never), so a later seed does not learn the
 * same messages again.
 */
import type { Kysely, Migration } from 'kysely';

export function historySeedMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('group_config')
        .addColumn('history_seed', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('group_config')
        .addColumn('history_seeded_until', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  };
}
