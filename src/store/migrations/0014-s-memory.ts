/**
 * Migration 0014_s_memory: what the agent platform remembers of members who consented
 * (docs/agent-memory.md). `agent_consent`: one row per bot account, member and platform, the
 * member's yes or no with its scopes; `agent_person_fact`: short facts about a member, per bot
 * account (group 0: any group); `agent_observation`: conversation excerpts waiting to be turned
 * into facts, claimed by one process at a time through `claimed_by` and a lease (fleet).
 */
import type { Kysely, Migration } from 'kysely';
import type { EngineKind } from '../../sql/engine.ts';

export function agentMemoryMigration(kind: EngineKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      const id = (table: ReturnType<Kysely<unknown>['schema']['createTable']>) =>
        kind === 'sqlite'
          ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
          : table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity());

      await db.schema
        .createTable('agent_consent')
        .addColumn('self_id', 'bigint', (c) => c.notNull())
        .addColumn('user_id', 'bigint', (c) => c.notNull())
        .addColumn('platform', 'text', (c) => c.notNull().defaultTo('qq'))
        .addColumn('granted', 'integer', (c) => c.notNull().defaultTo(0))
        // JSON list of what may be kept ('facts' for now).
        .addColumn('scopes', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('pk_agent_consent', ['self_id', 'user_id', 'platform'])
        .execute();

      await id(db.schema.createTable('agent_person_fact'))
        .addColumn('self_id', 'bigint', (c) => c.notNull())
        .addColumn('group_id', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('user_id', 'bigint', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('confidence', 'real', (c) => c.notNull().defaultTo(1))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('corrected', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createIndex('ix_agent_person_fact_member')
        .on('agent_person_fact')
        .columns(['self_id', 'user_id', 'id'])
        .execute();

      await id(db.schema.createTable('agent_observation'))
        .addColumn('self_id', 'bigint', (c) => c.notNull())
        .addColumn('group_id', 'bigint', (c) => c.notNull())
        // JSON {aliases: {userId: alias}, lines: [{speaker, text, time}]}: aliases only, no other member's number.
        .addColumn('excerpt', 'text', (c) => c.notNull())
        // JSON list of the consented members it is about, for 「忘记我」 and attribution.
        .addColumn('user_ids', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('claimed_by', 'text', (c) => c.notNull().defaultTo(''))
        // Unix milliseconds until which the claim holds; a pending row past it may be claimed.
        .addColumn('lease_until', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('ix_agent_observation_status_id')
        .on('agent_observation')
        .columns(['status', 'id'])
        .execute();
    },
  };
}
