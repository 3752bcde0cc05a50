/**
 * The member memory as the console sees it (routes/agent-memory.ts): facts with their member's
 * consent, manual facts (only for a consenting member), corrections, deletions, consent from the
 * console (withdrawing it deletes the facts as 「忘记我」 does), the observation queue and the
 * memory's counters. The routes record each change in the activity log.
 */
import type { Consent, Observation, ObservationStatus, PersonFact } from '../../store/agent-memory-tables.ts';
import type { Forgotten } from '../../store/agent-memory-facts.ts';
import { CONSENT_SCOPES } from './memory-commands.ts';
import type { AgentMemory, MemoryCounters } from './member-memory.ts';

export type { Consent, Observation, ObservationStatus, PersonFact } from '../../store/agent-memory-tables.ts';

export interface MemoryOverview {
  queueSize: number;
  counters: MemoryCounters;
  /** Whether a background model turns observations into facts. */
  workerEnabled: boolean;
}

export interface AgentMemoryPort {
  listFacts(filter: {
    selfId: number;
    groupId?: number;
    userId?: number;
    limit: number;
  }): Promise<{ fact: PersonFact; consented: boolean }[]>;
  /** Null: the member has not consented with that account (nothing written). */
  addFact(input: { selfId: number; groupId: number; userId: number; content: string }): Promise<PersonFact | null>;
  correctFact(id: number, content: string): Promise<{ before: PersonFact; after: PersonFact } | null>;
  deleteFact(id: number): Promise<PersonFact | null>;
  consents(userId: number, selfId?: number): Promise<Consent[]>;
  /** Grants, or withdraws and forgets (every fact, the consent, pending observations). */
  setConsent(
    selfId: number,
    userId: number,
    granted: boolean,
  ): Promise<{ before: boolean; forgotten: Forgotten | null }>;
  observations(filter: {
    selfId?: number;
    groupId?: number;
    status?: ObservationStatus;
    limit: number;
  }): Promise<Observation[]>;
  overview(): Promise<MemoryOverview>;
}

export function memoryAdmin(memory: AgentMemory, workerEnabled: () => boolean): AgentMemoryPort {
  return {
    listFacts: (filter) => memory.facts.list(filter),
    addFact: (input) => memory.facts.add({ ...input, source: 'manual', confidence: 1, now: memory.nowSec() }),
    correctFact: (id, content) => memory.facts.correct(id, content, memory.nowSec()),
    deleteFact: (id) => memory.facts.delete(id),
    consents: (userId, selfId) => memory.facts.consentsOf(userId, selfId),
    async setConsent(selfId, userId, granted) {
      if (granted)
        return { ...(await memory.facts.grant(selfId, userId, CONSENT_SCOPES, memory.nowSec())), forgotten: null };
      const forgotten = await memory.facts.forget(selfId, userId);
      return { before: forgotten.hadConsent, forgotten };
    },
    observations: (filter) => memory.queue.list(filter),
    overview: async () => ({
      queueSize: await memory.queue.pendingCount(),
      counters: { ...memory.counters },
      workerEnabled: workerEnabled(),
    }),
  };
}
