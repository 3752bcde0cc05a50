/**
 * Migration 0014_s_chat (docs/agent.md): the ledger of language-model calls, one row per call
 * (who caused it, tokens, latency, outcome code), read by the console and summed per day for the
 * budgets; and each group's mode of model answers (`group_config.agent_chat`, NULL: the default).
 */
import type { Kysely, Migration } from 'kysely';
import type { EngineKind } from '../../sql/engine.ts';

export function agentChatMigration(kind: EngineKind): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('group_config').addColumn('agent_chat', 'text').execute();
      const table = db.schema.createTable('agent_chat_call');
      await (
        kind === 'sqlite'
          ? table.addColumn('id', 'integer', (c) => c.primaryKey().autoIncrement())
          : table.addColumn('id', 'bigint', (c) => c.primaryKey().generatedByDefaultAsIdentity())
      )
        // Unix milliseconds of the call's end.
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('self_id', 'bigint', (c) => c.notNull())
        .addColumn('group_id', 'bigint', (c) => c.notNull())
        // The member who caused it (kept here for the per-member budget; never sent to the model); 0: none.
        .addColumn('user_id', 'bigint', (c) => c.notNull().defaultTo(0))
        // 'chat' | 'background'.
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('model', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('prompt_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('completion_tokens', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('latency_ms', 'integer', (c) => c.notNull().defaultTo(0))
        // 'ok', a ModelFailureCode, or 'over_budget' / 'busy' (not called).
        .addColumn('outcome', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('ix_agent_chat_call_at').on('agent_chat_call').column('at').execute();
    },
  };
}
