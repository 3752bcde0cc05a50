import { sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import type { EngineKind, MigrationSet } from '../sql/engine.ts';
import { LEGACY_CONTRIBUTOR } from './limits.ts';

/**
 * The hub's migrations for both engines. Kysely's bookkeeping tables get hub names so that a hub
 * and a bot may share one database (or one PostgreSQL schema) without reading each other's
 * migration history. Append new migrations; never edit an applied one.
 */
function migrations(kind: EngineKind): Record<string, Migration> {
  const id = (table: ReturnType<Kysely<unknown>['schema']['createTable']>) =>
    kind === 'sqlite'
      ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
      : table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity());

  return {
    '0001_hub': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .createTable('hub_deployment')
          .addColumn('deployment_id', 'text', (c) => c.primaryKey())
          .addColumn('token_hash', 'text', (c) => c.notNull().unique())
          .addColumn('read_enabled', 'integer', (c) => c.notNull())
          .addColumn('contribute_enabled', 'integer', (c) => c.notNull())
          .addColumn('read_per_minute', 'integer', (c) => c.notNull())
          .addColumn('contributions_per_day', 'integer', (c) => c.notNull())
          .addColumn('policy_override', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('enrolled_at', 'bigint', (c) => c.notNull())
          .addColumn('expires_at', 'bigint')
          .execute();

        await db.schema
          .createTable('hub_usage')
          .addColumn('deployment_id', 'text', (c) => c.primaryKey())
          .addColumn('read_lookups', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('read_hits', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('contribute_ok', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('updated_at', 'bigint')
          .addColumn('read_window', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('read_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('contribute_window', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('contribute_count', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('hot_uploaded_at', 'bigint')
          .execute();

        await id(db.schema.createTable('hub_context'))
          .addColumn('keywords', 'text', (c) => c.notNull())
          .addColumn('keywords_hash', 'text', (c) => c.notNull().unique())
          .addColumn('time', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('trigger_count', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('answer_count_sum', 'bigint', (c) => c.notNull().defaultTo(0))
          .execute();
        // Pool hot words: ORDER BY answer_count_sum DESC, id LIMIT n as an index walk.
        await db.schema
          .createIndex('ix_hub_context_count_sum')
          .on('hub_context')
          .expression(sql.raw('answer_count_sum DESC, id'))
          .execute();

        // The unique key's leading column serves lookups by context_id.
        await id(db.schema.createTable('hub_answer'))
          .addColumn('context_id', 'bigint', (c) => c.notNull().references('hub_context.id').onDelete('cascade'))
          .addColumn('keywords', 'text', (c) => c.notNull())
          .addColumn('keywords_hash', 'text', (c) => c.notNull())
          .addColumn('count', 'integer', (c) => c.notNull().defaultTo(1))
          .addColumn('time', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('messages', 'text', (c) => c.notNull().defaultTo(sql`'[]'`))
          .addUniqueConstraint('uq_hub_answer_ctx_kw', ['context_id', 'keywords_hash'])
          .execute();
        // Recent hot words: SUM(count) per context over answers newer than a cutoff, from the index.
        await db.schema
          .createIndex('ix_hub_answer_time_ctx_count')
          .on('hub_answer')
          .columns(['time', 'context_id', 'count'])
          .execute();

        await db.schema
          .createTable('hub_hot_snapshot')
          .addColumn('deployment_id', 'text', (c) => c.notNull())
          .addColumn('keywords_hash', 'text', (c) => c.notNull())
          .addColumn('keywords', 'text', (c) => c.notNull())
          .addColumn('score', 'bigint', (c) => c.notNull())
          .addColumn('as_of', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('pk_hub_hot_snapshot', ['deployment_id', 'keywords_hash'])
          .execute();
        await db.schema.createIndex('ix_hub_hot_snapshot_as_of').on('hub_hot_snapshot').column('as_of').execute();

        await db.schema
          .createTable('hub_heartbeat')
          .addColumn('deployment_id', 'text', (c) => c.primaryKey())
          .addColumn('first_seen', 'bigint', (c) => c.notNull())
          .addColumn('last_seen', 'bigint', (c) => c.notNull())
          .addColumn('version', 'text', (c) => c.notNull().defaultTo(''))
          .addColumn('online_bots', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('catalog_bots', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('sharded', 'integer', (c) => c.notNull().defaultTo(0))
          .addColumn('shard_workers', 'integer')
          .execute();
        await db.schema.createIndex('ix_hub_heartbeat_last_seen').on('hub_heartbeat').column('last_seen').execute();

        await db.schema
          .createTable('hub_address_rate')
          .addColumn('rate_key', 'text', (c) => c.primaryKey())
          .addColumn('window_start', 'bigint', (c) => c.notNull())
          .addColumn('count', 'integer', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('ix_hub_address_rate_window')
          .on('hub_address_rate')
          .column('window_start')
          .execute();
      },
    },
    /**
     * Agreement before serving (docs/hub.md#agreement): which deployment contributed what count
     * to each answer, each deployment's address cohort, and the blocked flag. Address windows move
     * to memory (a refused request writes nothing), so their table goes.
     */
    '0002_agreement': {
      async up(db: Kysely<unknown>) {
        await db.schema
          .alterTable('hub_deployment')
          .addColumn('cohort', 'text', (c) => c.notNull().defaultTo(''))
          .execute();
        await db.schema
          .alterTable('hub_deployment')
          .addColumn('address_hash', 'text', (c) => c.notNull().defaultTo(''))
          .execute();
        await db.schema
          .alterTable('hub_deployment')
          .addColumn('blocked', 'integer', (c) => c.notNull().defaultTo(0))
          .execute();
        await sql`UPDATE hub_deployment SET cohort = deployment_id`.execute(db);
        await db.schema
          .createIndex('ix_hub_deployment_address')
          .on('hub_deployment')
          .columns(['address_hash', 'enrolled_at'])
          .execute();

        await db.schema
          .createTable('hub_answer_vote')
          .addColumn('answer_id', 'bigint', (c) => c.notNull().references('hub_answer.id').onDelete('cascade'))
          .addColumn('deployment_id', 'text', (c) => c.notNull())
          .addColumn('context_id', 'bigint', (c) => c.notNull())
          .addColumn('count', 'integer', (c) => c.notNull())
          .addColumn('time', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('pk_hub_answer_vote', ['answer_id', 'deployment_id'])
          .execute();
        await db.schema
          .createIndex('ix_hub_answer_vote_context')
          .on('hub_answer_vote')
          .columns(['context_id', 'answer_id'])
          .execute();
        await db.schema
          .createIndex('ix_hub_answer_vote_deployment')
          .on('hub_answer_vote')
          .column('deployment_id')
          .execute();
        // Answers stored before this migration have no known contributors: they count as one
        // contributor (the `legacy` cohort) until others agree.
        await sql`INSERT INTO hub_answer_vote (answer_id, deployment_id, context_id, count, time)
          SELECT id, ${LEGACY_CONTRIBUTOR}, context_id, count, time FROM hub_answer`.execute(db);

        await db.schema.dropTable('hub_address_rate').execute();
      },
    },
    /** Bans that travel and hub moderation (docs/hub.md#moderation): reports, withdrawals, the audit log. */
    '0003_moderation': {
      async up(db: Kysely<unknown>) {
        // One row per deployment that reported an answer: distinct deployments are what count.
        await db.schema
          .createTable('hub_report')
          .addColumn('keywords_hash', 'text', (c) => c.notNull())
          .addColumn('answer_hash', 'text', (c) => c.notNull())
          .addColumn('deployment_id', 'text', (c) => c.notNull())
          .addColumn('keywords', 'text', (c) => c.notNull())
          .addColumn('answer_keywords', 'text', (c) => c.notNull())
          .addColumn('reported_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('pk_hub_report', ['keywords_hash', 'answer_hash', 'deployment_id'])
          .execute();

        // What the hub no longer serves; `restored_at` set = served again (kept for the record).
        await db.schema
          .createTable('hub_withdrawal')
          .addColumn('keywords_hash', 'text', (c) => c.notNull())
          .addColumn('answer_hash', 'text', (c) => c.notNull())
          .addColumn('keywords', 'text', (c) => c.notNull())
          .addColumn('answer_keywords', 'text', (c) => c.notNull())
          .addColumn('reason', 'text', (c) => c.notNull())
          .addColumn('withdrawn_at', 'bigint', (c) => c.notNull())
          .addColumn('restored_at', 'bigint')
          .addPrimaryKeyConstraint('pk_hub_withdrawal', ['keywords_hash', 'answer_hash'])
          .execute();
        // GET /withdrawn?since= walks this index.
        await db.schema.createIndex('ix_hub_withdrawal_at').on('hub_withdrawal').columns(['withdrawn_at']).execute();

        await id(db.schema.createTable('hub_audit'))
          .addColumn('at', 'bigint', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('target', 'text', (c) => c.notNull())
          .addColumn('address', 'text', (c) => c.notNull())
          .addColumn('detail', 'text', (c) => c.notNull().defaultTo(''))
          .execute();
      },
    },
  };
}

function hubMigrationProvider(kind: EngineKind): MigrationProvider {
  return { getMigrations: async () => migrations(kind) };
}

export function hubMigrations(kind: EngineKind): MigrationSet {
  return {
    provider: hubMigrationProvider(kind),
    tableName: 'hub_kysely_migration',
    lockTableName: 'hub_kysely_migration_lock',
  };
}
