/**
 * One activity log for every change to what the bot says and where (docs/rules.md#activity-log,
 * src/store/activity-log.ts). It replaces `moderation_log` (migration 0005): its rows are copied
 * over as console entries, with their undo snapshots, and the old table is dropped, so there is
 * one log, not two.
 */
import { sql, type Kysely, type Migration } from 'kysely';
import type { EngineKind } from '../../sql/engine.ts';

interface OldRow {
  id: number | string;
  time: number | string;
  actor: string;
  action: string;
  context_id: number | string;
  context_keywords: string;
  answer_keywords: string;
  group_id: number | string;
  snapshot: string;
  undone_at: number | string;
  undone_by: string;
}

/** The everywhere group of the repeater (src/repeater/limits.ts GLOBAL_BAN_GROUP), fixed here as applied. */
const EVERYWHERE_GROUP = 114514;

export function activityLogMigration(kind: EngineKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const table = db.schema.createTable('activity_log');
      await (
        kind === 'sqlite'
          ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
          : table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      )
        .addColumn('time', 'bigint', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        // console | chat | hub | system
        .addColumn('actor_kind', 'text', (c) => c.notNull())
        .addColumn('actor_level', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('actor_address', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('actor_user_id', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('actor_name', 'text', (c) => c.notNull().defaultTo(''))
        // group | everywhere
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('group_id', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('context_id', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('answer_id', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('context_keywords', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('answer_keywords', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('params', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('snapshot', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('undone_at', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('undone_by', 'text', (c) => c.notNull().defaultTo(''))
        .execute();
      // Pages are newest first by id; the filters walk these in id order.
      await db.schema.createIndex('ix_activity_log_time').on('activity_log').column('time').execute();
      await db.schema.createIndex('ix_activity_log_kind_id').on('activity_log').columns(['kind', 'id']).execute();
      await db.schema.createIndex('ix_activity_log_group_id').on('activity_log').columns(['group_id', 'id']).execute();

      const old = await sql<OldRow>`SELECT * FROM moderation_log ORDER BY id`.execute(db);
      for (const row of old.rows) {
        // The old actor text is `<level> <via> from <address>` (src/console/routes/moderation.ts).
        const [head = '', address = ''] = row.actor.split(' from ');
        const groupId = Number(row.group_id);
        await sql`INSERT INTO activity_log (time, kind, actor_kind, actor_level, actor_address, scope, group_id,
            context_id, context_keywords, answer_keywords, snapshot, undone_at, undone_by)
          VALUES (${Number(row.time)}, ${row.action}, 'console', ${head.split(' ')[0] ?? ''}, ${address},
            ${groupId === EVERYWHERE_GROUP || groupId === 0 ? 'everywhere' : 'group'}, ${groupId},
            ${Number(row.context_id)}, ${row.context_keywords}, ${row.answer_keywords}, ${row.snapshot},
            ${Number(row.undone_at)}, ${row.undone_by})`.execute(db);
      }
      await db.schema.dropTable('moderation_log').execute();
    },
  };
}
