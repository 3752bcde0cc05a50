/**
 * Consent and person facts of the agent memory (docs/agent-memory.md), on either engine. A fact
 * is only written while its member's consent is granted (checked in the same transaction), and
 * 「忘记我」 deletes the member's facts, consent and the observations about them in one transaction,
 * so no process of a fleet sees half of it.
 */
import type { Selectable } from 'kysely';
import { readFirst, readRows } from '../sql/engine.ts';
import { exec, first, rows } from '../sql/program.ts';
import { bound } from '../sql/query.ts';
import {
  MEMORY_PLATFORM,
  memoryDb,
  type AgentConsentTable,
  type AgentPersonFactTable,
  type Consent,
  type FactSource,
  type MemoryDb,
  type PersonFact,
} from './agent-memory-tables.ts';
import type { StoreEngine } from './schema.ts';

export interface FactFilter {
  selfId: number;
  groupId?: number;
  userId?: number;
  limit: number;
}

export interface NewFact {
  selfId: number;
  groupId: number;
  userId: number;
  content: string;
  source: FactSource;
  confidence: number;
  /** Unix seconds. */
  now: number;
}

/** What 「忘记我」 or a withdrawal removed. */
export interface Forgotten {
  facts: number;
  observations: number;
  hadConsent: boolean;
}

export function toConsent(row: Selectable<AgentConsentTable>): Consent {
  return {
    selfId: Number(row.self_id),
    userId: Number(row.user_id),
    platform: row.platform,
    granted: Number(row.granted) === 1,
    scopes: parseList(row.scopes),
    updatedAt: Number(row.updated_at),
  };
}

export function toFact(row: Selectable<AgentPersonFactTable>): PersonFact {
  return {
    id: Number(row.id),
    selfId: Number(row.self_id),
    groupId: Number(row.group_id),
    userId: Number(row.user_id),
    content: row.content,
    source: row.source,
    confidence: Number(row.confidence),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    corrected: Number(row.corrected) === 1,
  };
}

function parseList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

export class AgentMemoryFacts {
  readonly #engine: StoreEngine;
  readonly #db: MemoryDb;

  constructor(engine: StoreEngine) {
    this.#engine = engine;
    this.#db = memoryDb(engine);
  }

  async consent(selfId: number, userId: number): Promise<Consent | null> {
    const row = await readFirst(this.#engine, bound(this.#consentQuery(selfId, userId)));
    return row ? toConsent(row) : null;
  }

  /** The member's consent with every bot account (or one). */
  async consentsOf(userId: number, selfId?: number): Promise<Consent[]> {
    let query = this.#db.selectFrom('agent_consent').selectAll().where('user_id', '=', userId);
    if (selfId !== undefined) query = query.where('self_id', '=', selfId);
    return (await readRows(this.#engine, bound(query.orderBy('self_id')))).map(toConsent);
  }

  /** Grants consent (「记住我」, console); answers whether it was granted before. */
  async grant(selfId: number, userId: number, scopes: readonly string[], now: number): Promise<{ before: boolean }> {
    const db = this.#db;
    const read = bound(this.#consentQuery(selfId, userId));
    const upsert = bound(
      db
        .insertInto('agent_consent')
        .values({
          self_id: selfId,
          user_id: userId,
          platform: MEMORY_PLATFORM,
          granted: 1,
          scopes: JSON.stringify(scopes),
          updated_at: now,
        })
        .onConflict((c) =>
          c
            .columns(['self_id', 'user_id', 'platform'])
            .doUpdateSet({ granted: 1, scopes: JSON.stringify(scopes), updated_at: now }),
        ),
    );
    return this.#engine.run(
      function* () {
        const before = yield* first(read);
        yield* exec(upsert);
        return { before: before !== undefined && Number(before.granted) === 1 };
      },
      { write: true },
    );
  }

  /**
   * Deletes every fact of the member for this bot account, the consent, and the pending
   * observations about them: those about them alone go, the others lose the member.
   */
  async forget(selfId: number, userId: number): Promise<Forgotten> {
    const db = this.#db;
    const read = bound(this.#consentQuery(selfId, userId));
    const deleteFacts = bound(
      db.deleteFrom('agent_person_fact').where('self_id', '=', selfId).where('user_id', '=', userId),
    );
    const deleteConsent = bound(
      db
        .deleteFrom('agent_consent')
        .where('self_id', '=', selfId)
        .where('user_id', '=', userId)
        .where('platform', '=', MEMORY_PLATFORM),
    );
    const pending = bound(
      db
        .selectFrom('agent_observation')
        .select(['id', 'user_ids', 'excerpt'])
        .where('self_id', '=', selfId)
        .where('status', '=', 'pending')
        .where('user_ids', 'like', `%${userId}%`),
    );
    const remove = (id: number) => bound(db.deleteFrom('agent_observation').where('id', '=', id));
    const narrow = (id: number, userIds: number[], excerpt: string) =>
      bound(
        db
          .updateTable('agent_observation')
          .set({ user_ids: JSON.stringify(userIds), excerpt })
          .where('id', '=', id),
      );
    return this.#engine.run(
      function* () {
        const consent = yield* first(read);
        const facts = yield* exec(deleteFacts);
        yield* exec(deleteConsent);
        let observations = 0;
        for (const row of yield* rows(pending)) {
          const ids = (JSON.parse(row.user_ids) as number[]).map(Number);
          if (!ids.includes(userId)) continue;
          const left = ids.filter((id) => id !== userId);
          if (left.length === 0) {
            observations += yield* exec(remove(Number(row.id)));
          } else {
            const excerpt = JSON.parse(row.excerpt) as { aliases: Record<string, string> };
            delete excerpt.aliases[String(userId)];
            yield* exec(narrow(Number(row.id), left, JSON.stringify(excerpt)));
            observations++;
          }
        }
        return { facts, observations, hadConsent: consent !== undefined && Number(consent.granted) === 1 };
      },
      { write: true },
    );
  }

  /** Facts newest first, each with whether its member's consent stands. */
  async list(filter: FactFilter): Promise<{ fact: PersonFact; consented: boolean }[]> {
    let query = this.#db
      .selectFrom('agent_person_fact as f')
      .leftJoin('agent_consent as c', (join) =>
        join
          .onRef('c.self_id', '=', 'f.self_id')
          .onRef('c.user_id', '=', 'f.user_id')
          .on('c.platform', '=', MEMORY_PLATFORM),
      )
      .selectAll('f')
      .select('c.granted')
      .where('f.self_id', '=', filter.selfId);
    if (filter.groupId !== undefined) query = query.where('f.group_id', 'in', [filter.groupId, 0]);
    if (filter.userId !== undefined) query = query.where('f.user_id', '=', filter.userId);
    const found = await readRows(this.#engine, bound(query.orderBy('f.id', 'desc').limit(filter.limit)));
    return found.map((row) => ({ fact: toFact(row), consented: Number(row.granted ?? 0) === 1 }));
  }

  /** The member's facts for a prompt (this group's and any group's), only while consent stands. */
  async forPrompt(selfId: number, groupId: number, userId: number, limit: number): Promise<PersonFact[]> {
    const query = this.#db
      .selectFrom('agent_person_fact as f')
      .innerJoin('agent_consent as c', (join) =>
        join
          .onRef('c.self_id', '=', 'f.self_id')
          .onRef('c.user_id', '=', 'f.user_id')
          .on('c.platform', '=', MEMORY_PLATFORM)
          .on('c.granted', '=', 1),
      )
      .selectAll('f')
      .where('f.self_id', '=', selfId)
      .where('f.user_id', '=', userId)
      .where('f.group_id', 'in', [groupId, 0])
      .orderBy('f.id', 'desc')
      .limit(limit);
    return (await readRows(this.#engine, bound(query))).map(toFact);
  }

  async get(id: number): Promise<PersonFact | null> {
    const row = await readFirst(
      this.#engine,
      bound(this.#db.selectFrom('agent_person_fact').selectAll().where('id', '=', id)),
    );
    return row ? toFact(row) : null;
  }

  /**
   * Adds a fact when the member's consent stands (else null, nothing written); the same content
   * already known of the member is not added twice (answers the existing fact).
   */
  async add(fact: NewFact): Promise<PersonFact | null> {
    const db = this.#db;
    const consent = bound(this.#consentQuery(fact.selfId, fact.userId));
    const same = bound(
      db
        .selectFrom('agent_person_fact')
        .selectAll()
        .where('self_id', '=', fact.selfId)
        .where('user_id', '=', fact.userId)
        .where('content', '=', fact.content),
    );
    const insert = bound(
      db
        .insertInto('agent_person_fact')
        .values({
          self_id: fact.selfId,
          group_id: fact.groupId,
          user_id: fact.userId,
          content: fact.content,
          source: fact.source,
          confidence: fact.confidence,
          created_at: fact.now,
          updated_at: fact.now,
          corrected: 0,
        })
        .returningAll(),
    );
    const row = await this.#engine.run(
      function* () {
        const granted = yield* first(consent);
        if (!granted || Number(granted.granted) !== 1) return undefined;
        const existing = yield* first(same);
        if (existing) return existing;
        return yield* first(insert);
      },
      { write: true },
    );
    return row ? toFact(row) : null;
  }

  /** Replaces a fact's text (marked corrected); answers the fact before and after, or null. */
  async correct(id: number, content: string, now: number): Promise<{ before: PersonFact; after: PersonFact } | null> {
    const db = this.#db;
    const read = bound(db.selectFrom('agent_person_fact').selectAll().where('id', '=', id));
    const update = bound(
      db
        .updateTable('agent_person_fact')
        .set({ content, corrected: 1, source: 'manual', confidence: 1, updated_at: now })
        .where('id', '=', id)
        .returningAll(),
    );
    const result = await this.#engine.run(
      function* () {
        const before = yield* first(read);
        if (!before) return null;
        const after = yield* first(update);
        return after ? { before, after } : null;
      },
      { write: true },
    );
    return result ? { before: toFact(result.before), after: toFact(result.after) } : null;
  }

  /** Deletes one fact; answers it, or null when there was none. */
  async delete(id: number): Promise<PersonFact | null> {
    const db = this.#db;
    const read = bound(db.selectFrom('agent_person_fact').selectAll().where('id', '=', id));
    const remove = bound(db.deleteFrom('agent_person_fact').where('id', '=', id));
    const row = await this.#engine.run(
      function* () {
        const before = yield* first(read);
        if (before) yield* exec(remove);
        return before;
      },
      { write: true },
    );
    return row ? toFact(row) : null;
  }

  #consentQuery(selfId: number, userId: number) {
    return this.#db
      .selectFrom('agent_consent')
      .selectAll()
      .where('self_id', '=', selfId)
      .where('user_id', '=', userId)
      .where('platform', '=', MEMORY_PLATFORM);
  }
}
