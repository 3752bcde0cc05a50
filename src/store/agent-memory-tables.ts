/**
 * The agent memory's tables (migration 0014_s_memory; docs/agent-memory.md), typed for Kysely
 * through `withTables`, and the shapes the store hands out.
 */
import type { Generated, Kysely } from 'kysely';
import type { Database, StoreEngine } from './schema.ts';

export const MEMORY_PLATFORM = 'qq';

export interface AgentConsentTable {
  self_id: number;
  user_id: number;
  platform: string;
  /** 1: the member said yes (「记住我」); 0: no, or withdrawn. */
  granted: number;
  /** JSON list of what may be kept. */
  scopes: string;
  /** Unix seconds. */
  updated_at: number;
}

export interface AgentPersonFactTable {
  id: Generated<number>;
  self_id: number;
  /** 0: any group of the account. */
  group_id: number;
  user_id: number;
  content: string;
  source: FactSource;
  confidence: number;
  created_at: number;
  updated_at: number;
  corrected: number;
}

export interface AgentObservationTable {
  id: Generated<number>;
  self_id: number;
  group_id: number;
  excerpt: string;
  user_ids: string;
  status: ObservationStatus;
  attempts: number;
  claimed_by: string;
  /** Unix milliseconds. */
  lease_until: number;
  error: string;
  /** Unix seconds. */
  created_at: number;
  updated_at: number;
}

// A type alias, not an interface: `withTables` wants an indexable record.
export type AgentMemoryTables = {
  agent_consent: AgentConsentTable;
  agent_person_fact: AgentPersonFactTable;
  agent_observation: AgentObservationTable;
};

export type MemoryDb = Kysely<Database & AgentMemoryTables>;

export function memoryDb(engine: StoreEngine): MemoryDb {
  return engine.db.withTables<AgentMemoryTables>();
}

export type FactSource = 'manual' | 'model';
export type ObservationStatus = 'pending' | 'done' | 'failed';

export interface Consent {
  readonly selfId: number;
  readonly userId: number;
  readonly platform: string;
  readonly granted: boolean;
  readonly scopes: readonly string[];
  /** Unix seconds. */
  readonly updatedAt: number;
}

export interface PersonFact {
  readonly id: number;
  readonly selfId: number;
  readonly groupId: number;
  readonly userId: number;
  readonly content: string;
  readonly source: FactSource;
  readonly confidence: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly corrected: boolean;
}

/** One line of a stored excerpt: the speaker's alias, never a QQ number. */
export interface StoredLine {
  readonly speaker: string;
  readonly text: string;
  readonly time: number;
}

export interface StoredExcerpt {
  /** Alias of each consented member, keyed by QQ number (only consented members' numbers). */
  readonly aliases: Readonly<Record<string, string>>;
  readonly lines: readonly StoredLine[];
}

export interface Observation {
  readonly id: number;
  readonly selfId: number;
  readonly groupId: number;
  readonly excerpt: StoredExcerpt;
  readonly userIds: readonly number[];
  readonly status: ObservationStatus;
  readonly attempts: number;
  readonly error: string;
  readonly createdAt: number;
  readonly updatedAt: number;
}
