import { PostgresAdapter, sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import { HOT_KEYWORDS_PREFIX, type EngineKind } from './migrations.ts';
import { bound, template } from './query.ts';
import type { Database } from './schema.ts';

export interface ContextRow {
  id: number;
  keywords: string;
  time: number;
  trigger_count: number;
  clear_time: number;
}

export interface SnapshotContextRow extends ContextRow {
  ban_keywords: string | null;
  ban_group_id: number | null;
  ban_reason: string | null;
  ban_time: number | null;
}

export interface AnswerRow {
  id: number;
  keywords: string;
  group_id: number;
  count: number;
  time: number;
}

export interface AnswerWithMessageRow extends AnswerRow {
  message: string | null;
}

export interface BanRow {
  context_id: number;
  keywords: string;
  group_id: number;
  reason: string;
  time: number;
}

export interface MessageRow {
  answer_id: number;
  message: string;
}

/** A context ranked by hot keywords: `score` is its answer count sum (of one group's answers, or all). */
export interface HotContextRow {
  id: number;
  keywords: string;
  score: number;
}

/** One of the top answers of a hot context, with its first message ('' when it has none). */
export interface HotAnswerRow {
  context_id: number;
  keywords: string;
  count: number;
  message: string;
}

/** A polluted answer message found by the contamination cleanup, with its answer and context. */
export interface PollutedMessageRow {
  id: number;
  answer_id: number;
  context_id: number;
}

/** Phrases a text must contain one of, and must contain none of (contamination cleanup). */
export interface PhraseMatch {
  phrases: readonly string[];
  exempt: readonly string[];
}

export interface NewAnswerRow {
  context_id: number;
  keywords: string;
  keywords_hash: string;
  group_id: number;
  count: number;
  time: number;
}

/**
 * Every statement of the corpus store, built with Kysely in the engine's dialect. Hot statements
 * are templates compiled once; statements whose text varies (multi-row inserts, id lists) are
 * compiled per call.
 */
export function corpusQueries(db: Kysely<Database>) {
  const kind: EngineKind = db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
  /** Keywords compare by code point on both engines: SQLite's BINARY, PostgreSQL's "C" collation. */
  const byteOrder = sql.raw(kind === 'postgres' ? ' COLLATE "C"' : '');
  const keywordsPrefix = sql.raw(HOT_KEYWORDS_PREFIX[kind]);
  /** An id list as one parameter, so the statement text does not depend on its length. */
  const idList = (ids: readonly number[]): unknown => (kind === 'postgres' ? [...ids] : JSON.stringify(ids));
  const hotAnswers = hotAnswersTemplate(db, kind, false);
  const hotAnswersOfGroup = hotAnswersTemplate(db, kind, true);

  return {
    contextIdByHash: template<{ hash: string }>((p) =>
      db.selectFrom('context').select('id').where('keywords_hash', '=', p('hash')).limit(1),
    ),

    contextByHash: template<{ hash: string }>((p) =>
      db
        .selectFrom('context')
        .select(['id', 'keywords', 'time', 'trigger_count', 'clear_time'])
        .where('keywords_hash', '=', p('hash')),
    ),

    /** Snapshot query 1: the context row with its bans (one row per ban, in ban order). */
    snapshotContext: template<{ hash: string }>((p) =>
      db
        .selectFrom('context as c')
        .leftJoin('context_ban as b', 'b.context_id', 'c.id')
        .select([
          'c.id',
          'c.keywords',
          'c.time',
          'c.trigger_count',
          'c.clear_time',
          'b.keywords as ban_keywords',
          'b.group_id as ban_group_id',
          'b.reason as ban_reason',
          'b.time as ban_time',
        ])
        .where('c.keywords_hash', '=', p('hash'))
        .orderBy('b.id'),
    ),

    /**
     * Snapshot query 2: the top answers by count then time, each with its newest messages in
     * ascending order. The lowest message id to keep is found per answer with an index walk
     * (OFFSET cap-1 from the newest), so the cost is O(cap) per answer, however many messages a
     * popular answer has collected.
     */
    snapshotAnswers: template<{ contextId: number; answersCap: number; messagesOffset: number }>((p) => ({
      compile: () =>
        sql`WITH top_answer AS (
            SELECT id, keywords, group_id, count, time FROM context_answer
            WHERE context_id = ${p('contextId')}
            ORDER BY count DESC, time DESC, id DESC
            LIMIT ${p('answersCap')}
          ),
          bounded AS (
            SELECT t.id, t.keywords, t.group_id, t.count, t.time,
              COALESCE((SELECT m.id FROM context_answer_message m WHERE m.answer_id = t.id
                        ORDER BY m.id DESC LIMIT 1 OFFSET ${p('messagesOffset')}), 0) AS first_message_id
            FROM top_answer t
          )
          SELECT b.id, b.keywords, b.group_id, b.count, b.time, m.message
          FROM bounded b
          LEFT JOIN context_answer_message m ON m.answer_id = b.id AND m.id >= b.first_message_id
          ORDER BY b.count DESC, b.time DESC, b.id DESC, m.id ASC`.compile(db),
    })),

    answersOfContext: template<{ contextId: number }>((p) =>
      db
        .selectFrom('context_answer')
        .select(['id', 'keywords', 'group_id', 'count', 'time'])
        .where('context_id', '=', p('contextId'))
        .orderBy('id'),
    ),

    messagesOfContext: template<{ contextId: number }>((p) =>
      db
        .selectFrom('context_answer_message as m')
        .innerJoin('context_answer as a', 'a.id', 'm.answer_id')
        .select(['m.answer_id', 'm.message'])
        .where('a.context_id', '=', p('contextId'))
        .orderBy('m.id'),
    ),

    bansOfContext: template<{ contextId: number }>((p) =>
      db
        .selectFrom('context_ban')
        .select(['context_id', 'keywords', 'group_id', 'reason', 'time'])
        .where('context_id', '=', p('contextId'))
        .orderBy('id'),
    ),

    /**
     * Creates the context row when missing; returns its id only when this call created it.
     * learn_answer passes an answer count sum of 1 (the answer learned with it), insert the sum of
     * the answers it brings.
     */
    insertContextIfMissing: template<{
      keywords: string;
      hash: string;
      time: number;
      triggerCount: number;
      clearTime: number;
      answerCountSum: number;
    }>((p) =>
      db
        .insertInto('context')
        .values({
          keywords: p('keywords'),
          keywords_hash: p('hash'),
          time: p('time'),
          trigger_count: p('triggerCount'),
          clear_time: p('clearTime'),
          answer_count_sum: p('answerCountSum'),
        })
        .onConflict((oc) => oc.column('keywords_hash').doNothing())
        .returning('id'),
    ),

    /** Creates or overwrites the context row (save); the answers given replace all others. */
    upsertContext: template<{
      keywords: string;
      hash: string;
      time: number;
      triggerCount: number;
      clearTime: number;
      answerCountSum: number;
    }>((p) =>
      db
        .insertInto('context')
        .values({
          keywords: p('keywords'),
          keywords_hash: p('hash'),
          time: p('time'),
          trigger_count: p('triggerCount'),
          clear_time: p('clearTime'),
          answer_count_sum: p('answerCountSum'),
        })
        .onConflict((oc) =>
          oc.column('keywords_hash').doUpdateSet({
            keywords: p('keywords'),
            time: p('time'),
            trigger_count: p('triggerCount'),
            clear_time: p('clearTime'),
            answer_count_sum: p('answerCountSum'),
          }),
        )
        .returning('id'),
    ),

    /** One more learn event on an existing context: one of its answers counts one more. */
    touchContext: template<{ hash: string; time: number }>((p) =>
      db
        .updateTable('context')
        .set((eb) => ({
          trigger_count: eb('trigger_count', '+', 1),
          answer_count_sum: eb('answer_count_sum', '+', 1),
          time: p('time'),
        }))
        .where('keywords_hash', '=', p('hash'))
        .returning('id'),
    ),

    insertAnswerIfMissing: template<{
      contextId: number;
      keywords: string;
      hash: string;
      groupId: number;
      time: number;
    }>((p) =>
      db
        .insertInto('context_answer')
        .values({
          context_id: p('contextId'),
          keywords: p('keywords'),
          keywords_hash: p('hash'),
          group_id: p('groupId'),
          count: 1,
          time: p('time'),
        })
        .onConflict((oc) => oc.columns(['context_id', 'group_id', 'keywords_hash']).doNothing())
        .returning('id'),
    ),

    touchAnswer: template<{ contextId: number; hash: string; groupId: number; time: number }>((p) =>
      db
        .updateTable('context_answer')
        .set((eb) => ({ count: eb('count', '+', 1), time: p('time') }))
        .where('context_id', '=', p('contextId'))
        .where('group_id', '=', p('groupId'))
        .where('keywords_hash', '=', p('hash'))
        .returning('id'),
    ),

    /** replace_answers: set a kept answer to the given values, or create it. */
    putAnswer: template<{
      contextId: number;
      keywords: string;
      hash: string;
      groupId: number;
      count: number;
      time: number;
    }>((p) =>
      db
        .insertInto('context_answer')
        .values({
          context_id: p('contextId'),
          keywords: p('keywords'),
          keywords_hash: p('hash'),
          group_id: p('groupId'),
          count: p('count'),
          time: p('time'),
        })
        .onConflict((oc) =>
          oc
            .columns(['context_id', 'group_id', 'keywords_hash'])
            .doUpdateSet({ keywords: p('keywords'), count: p('count'), time: p('time') }),
        )
        .returning('id'),
    ),

    insertMessage: template<{ answerId: number; message: string }>((p) =>
      db.insertInto('context_answer_message').values({ answer_id: p('answerId'), message: p('message') }),
    ),

    deleteMessagesOfAnswer: template<{ answerId: number }>((p) =>
      db.deleteFrom('context_answer_message').where('answer_id', '=', p('answerId')),
    ),

    deleteAnswersOfContext: template<{ contextId: number }>((p) =>
      db.deleteFrom('context_answer').where('context_id', '=', p('contextId')),
    ),

    deleteBansOfContext: template<{ contextId: number }>((p) =>
      db.deleteFrom('context_ban').where('context_id', '=', p('contextId')),
    ),

    answerIdsOfContext: template<{ contextId: number }>((p) =>
      db.selectFrom('context_answer').select('id').where('context_id', '=', p('contextId')).orderBy('id'),
    ),

    /** replace_answers, first: locks the context row; the sum is the replacing answers' (known up front). */
    setClearTime: template<{ contextId: number; clearTime: number; answerCountSum: number }>((p) =>
      db
        .updateTable('context')
        .set({ clear_time: p('clearTime'), answer_count_sum: p('answerCountSum') })
        .where('id', '=', p('contextId')),
    ),

    /** replace_answers in steps (SQLite, large contexts), last: the sum recounted from the answers. */
    setClearTimeRecount: template<{ contextId: number; clearTime: number }>((p) =>
      db
        .updateTable('context')
        .set((eb) => ({ clear_time: p('clearTime'), answer_count_sum: answerCountSumOf(eb.ref('context.id')) }))
        .where('id', '=', p('contextId')),
    ),

    insertBan: template<{ contextId: number; keywords: string; groupId: number; reason: string; time: number }>((p) =>
      db.insertInto('context_ban').values({
        context_id: p('contextId'),
        keywords: p('keywords'),
        group_id: p('groupId'),
        reason: p('reason'),
        time: p('time'),
      }),
    ),

    maxContextId: template<Record<string, never>>(() =>
      db.selectFrom('context').select((eb) => eb.fn.max('id').as('max_id')),
    ),

    countContexts: template<Record<string, never>>(() =>
      db.selectFrom('context').select((eb) => eb.fn.countAll<number>().as('n')),
    ),

    deleteExpiredInRange: template<{ fromId: number; toId: number; expiration: number; threshold: number }>((p) =>
      db
        .deleteFrom('context')
        .where('id', '>', p('fromId'))
        .where('id', '<=', p('toId'))
        .where('time', '<', p('expiration'))
        .where('trigger_count', '<', p('threshold')),
    ),

    cleanupCandidatesInRange: template<{
      fromId: number;
      toId: number;
      triggerThreshold: number;
      expiration: number;
      limit: number;
    }>((p) =>
      db
        .selectFrom('context')
        .select(['id', 'keywords', 'time', 'trigger_count', 'clear_time'])
        .where('id', '>', p('fromId'))
        .where('id', '<=', p('toId'))
        .where((eb) => eb.or([eb('trigger_count', '>', p('triggerThreshold')), eb('clear_time', '<', p('expiration'))]))
        .orderBy('id')
        .limit(p('limit')),
    ),

    banReplyTarget: template<{ groupId: number; message: string }>((p) =>
      db
        .selectFrom('context_answer as a')
        .innerJoin('context_answer_message as m', 'm.answer_id', 'a.id')
        .innerJoin('context as c', 'c.id', 'a.context_id')
        .select(['c.keywords as context_keywords', 'a.keywords as answer_keywords'])
        .where('a.group_id', '=', p('groupId'))
        .where('m.message', '=', p('message'))
        .orderBy('a.time', 'desc')
        .orderBy('m.id', 'desc')
        .limit(1),
    ),

    answersOfGroupSince: template<{ groupId: number; cutoff: number }>((p) =>
      db
        .selectFrom('context_answer as a')
        .leftJoin('context_answer_message as m', 'm.answer_id', 'a.id')
        .select(['a.id', 'a.keywords', 'a.group_id', 'a.count', 'a.time', 'm.message'])
        .where('a.group_id', '=', p('groupId'))
        .where('a.time', '>=', p('cutoff'))
        .orderBy('a.id')
        .orderBy('m.id'),
    ),

    /**
     * Hot keywords, global: contexts by answer count sum, then keywords. A walk of
     * ix_context_answer_count_sum (its keywords prefix repeated verbatim so that the index serves
     * the order); only ties on the whole prefix are sorted.
     */
    hotContexts: template<{ limit: number }>((p) => ({
      compile: () =>
        sql`SELECT id, keywords, answer_count_sum AS score FROM context
          WHERE answer_count_sum > 0
          ORDER BY answer_count_sum DESC, ${keywordsPrefix}, keywords${byteOrder}
          LIMIT ${p('limit')}`.compile(db),
    })),

    /**
     * Hot keywords of one group over a context id window: score = SUM(count) of the group's
     * answers, aggregated from ix_context_answer_group_ctx_count alone. Only contexts scoring at
     * least `minScore` (the lowest score still in the running) and at least the `limit`-th best
     * score of the window have their keywords looked up (by primary key), so the cost is the
     * index range plus about `limit` lookups: no join over every context of the group (a join let
     * PostgreSQL pick a parallel hash join over the whole context table, 350+ ms at 1 M). The
     * answers' foreign key guarantees that each context exists in the statement's snapshot.
     */
    hotContextsOfGroupInRange: template<{
      groupId: number;
      fromId: number;
      toId: number;
      minScore: number;
      limit: number;
      lastPlace: number;
    }>((p) => ({
      compile: () =>
        sql`WITH s AS MATERIALIZED (
            SELECT context_id, SUM(count) AS score FROM context_answer
            WHERE group_id = ${p('groupId')} AND context_id > ${p('fromId')} AND context_id <= ${p('toId')}
            GROUP BY context_id
            HAVING SUM(count) >= ${p('minScore')}
          )
          SELECT s.context_id AS id,
            (SELECT c.keywords FROM context c WHERE c.id = s.context_id)${byteOrder} AS keywords,
            s.score
          FROM s
          WHERE s.score >= COALESCE(
            (SELECT s2.score FROM s s2 ORDER BY s2.score DESC LIMIT 1 OFFSET ${p('lastPlace')}), 0)
          ORDER BY s.score DESC, keywords
          LIMIT ${p('limit')}`.compile(db),
    })),

    /** The top `perContext` answers of each context (count desc, keywords), each with its first message. */
    hotAnswers(contextIds: readonly number[], perContext: number) {
      return hotAnswers({ ids: idList(contextIds), perContext, groupId: null });
    },

    /** The same, counting only the answers of one group. */
    hotAnswersOfGroup(contextIds: readonly number[], groupId: number, perContext: number) {
      return hotAnswersOfGroup({ ids: idList(contextIds), perContext, groupId });
    },

    maxAnswerMessageId: template<Record<string, never>>(() =>
      db.selectFrom('context_answer_message').select((eb) => eb.fn.max('id').as('max_id')),
    ),

    maxLogMessageId: template<Record<string, never>>(() =>
      db.selectFrom('message').select((eb) => eb.fn.max('id').as('max_id')),
    ),

    // Statements whose text depends on the number of rows or ids.

    /** Answer messages of an id window containing a phrase and no exempt phrase, in id order. */
    pollutedAnswerMessagesInRange(fromId: number, toId: number, match: PhraseMatch, limit: number) {
      return bound(
        db
          .selectFrom('context_answer_message as m')
          .innerJoin('context_answer as a', 'a.id', 'm.answer_id')
          .select(['m.id', 'm.answer_id', 'a.context_id'])
          .where('m.id', '>', fromId)
          .where('m.id', '<=', toId)
          .where(matchesPhrases(kind, sql.ref('m.message'), match))
          .orderBy('m.id')
          .limit(limit),
      );
    },

    /** Group log rows of an id window whose raw message contains a phrase and no exempt phrase. */
    pollutedLogMessagesInRange(fromId: number, toId: number, match: PhraseMatch, limit: number) {
      return bound(
        db
          .selectFrom('message')
          .select('id')
          .where('id', '>', fromId)
          .where('id', '<=', toId)
          .where(matchesPhrases(kind, sql.ref('raw_message'), match))
          .orderBy('id')
          .limit(limit),
      );
    },

    /**
     * Lock context rows before touching their answers (the store's lock order: context row first),
     * in id order. SQLite's write transaction already excludes every other writer.
     */
    lockContexts(ids: readonly number[]) {
      return bound(
        db
          .selectFrom('context')
          .select('id')
          .where('id', 'in', ids)
          .orderBy('id')
          .$if(kind === 'postgres', (qb) => qb.forUpdate()),
      );
    },

    deleteAnswerMessagesById(ids: readonly number[]) {
      return bound(db.deleteFrom('context_answer_message').where('id', 'in', ids));
    },

    /** Of these answers, delete those left without any message. */
    deleteEmptyAnswersById(ids: readonly number[]) {
      return bound(
        db
          .deleteFrom('context_answer')
          .where('id', 'in', ids)
          .where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('context_answer_message as m')
                  .select('m.id')
                  .whereRef('m.answer_id', '=', 'context_answer.id'),
              ),
            ),
          ),
      );
    },

    /** Recount the answer count sum of these contexts from their answers. */
    recountContexts(ids: readonly number[]) {
      return bound(
        db
          .updateTable('context')
          .set((eb) => ({ answer_count_sum: answerCountSumOf(eb.ref('context.id')) }))
          .where('id', 'in', ids),
      );
    },

    deleteLogMessagesById(ids: readonly number[]) {
      return bound(db.deleteFrom('message').where('id', 'in', ids));
    },

    insertAnswers(rows: NewAnswerRow[]) {
      return bound(db.insertInto('context_answer').values(rows).returning(['id', 'group_id', 'keywords_hash']));
    },

    insertMessages(rows: { answer_id: number; message: string }[]) {
      return bound(db.insertInto('context_answer_message').values(rows));
    },

    insertBans(rows: Omit<BanRow, never>[]) {
      return bound(db.insertInto('context_ban').values(rows));
    },

    deleteAnswersById(ids: number[]) {
      return bound(db.deleteFrom('context_answer').where('id', 'in', ids));
    },

    answersOfContexts(contextIds: number[]) {
      return bound(
        db
          .selectFrom('context_answer')
          .select(['id', 'context_id', 'keywords', 'group_id', 'count', 'time'])
          .where('context_id', 'in', contextIds)
          .orderBy('id'),
      );
    },

    messagesOfAnswers(answerIds: number[]) {
      return bound(
        db
          .selectFrom('context_answer_message')
          .select(['answer_id', 'message'])
          .where('answer_id', 'in', answerIds)
          .orderBy('id'),
      );
    },

    bansOfContexts(contextIds: number[]) {
      return bound(
        db
          .selectFrom('context_ban')
          .select(['context_id', 'keywords', 'group_id', 'reason', 'time'])
          .where('context_id', 'in', contextIds)
          .orderBy('id'),
      );
    },
  };
}

export type CorpusQueries = ReturnType<typeof corpusQueries>;

/** SUM(count) of the answers of the context `contextId` refers to, 0 when it has none. */
function answerCountSumOf(contextId: Expression<number>): RawBuilder<number> {
  return sql<number>`(SELECT COALESCE(SUM(a.count), 0) FROM context_answer a WHERE a.context_id = ${contextId})`;
}

/**
 * Contains one of `phrases` and none of `exempt`, as the guard's `includes` does: case-sensitive
 * substring search (instr / strpos), so no LIKE wildcard or ASCII case folding applies. Phrases
 * are bound parameters; the caller passes non-empty ones and at least one phrase.
 */
function matchesPhrases(kind: EngineKind, column: Expression<string>, match: PhraseMatch): RawBuilder<SqlBool> {
  const contains = (phrase: string) =>
    kind === 'postgres' ? sql`strpos(${column}, ${phrase}) > 0` : sql`instr(${column}, ${phrase}) > 0`;
  const any = sql.join(match.phrases.map(contains), sql` OR `);
  if (match.exempt.length === 0) return sql<SqlBool>`(${any})`;
  return sql<SqlBool>`(${any}) AND NOT (${sql.join(match.exempt.map(contains), sql` OR `)})`;
}

/**
 * The top answers of each listed context (one id-list parameter: a PostgreSQL array, or JSON for
 * SQLite's json_each), count desc then keywords, each with its first (lowest id) message. Per
 * context the answers come from ix_context_answer_ctx_count_time (or, for one group,
 * ix_context_answer_group_ctx_count) in count order; the first message from
 * ix_context_answer_message_answer_id_id. PostgreSQL runs the per-context pick as a LATERAL
 * subquery, SQLite as a correlated `id IN (… LIMIT n)` list.
 */
function hotAnswersTemplate(db: Kysely<Database>, kind: EngineKind, ofGroup: boolean) {
  return template<{ ids: unknown; perContext: number; groupId: number | null }>((p) => ({
    compile: () => {
      const group = ofGroup ? sql`AND b.group_id = ${p('groupId')}` : sql``;
      const firstMessage = (answerId: RawBuilder<unknown>) =>
        sql`COALESCE((SELECT m.message FROM context_answer_message m WHERE m.answer_id = ${answerId}
          ORDER BY m.id LIMIT 1), '')`;
      if (kind === 'postgres') {
        return sql`SELECT c.id AS context_id, t.keywords, t.count, ${firstMessage(sql.ref('t.id'))} AS message
          FROM unnest(CAST(${p('ids')} AS bigint[])) AS c(id)
          CROSS JOIN LATERAL (
            SELECT b.id, b.keywords, b.count FROM context_answer b
            WHERE b.context_id = c.id ${group}
            ORDER BY b.count DESC, b.keywords COLLATE "C"
            LIMIT ${p('perContext')}
          ) t
          ORDER BY c.id, t.count DESC, t.keywords COLLATE "C"`.compile(db);
      }
      return sql`SELECT c.value AS context_id, a.keywords, a.count, ${firstMessage(sql.ref('a.id'))} AS message
        FROM json_each(${p('ids')}) AS c
        JOIN context_answer a ON a.id IN (
          SELECT b.id FROM context_answer b
          WHERE b.context_id = c.value ${group}
          ORDER BY b.count DESC, b.keywords
          LIMIT ${p('perContext')}
        )
        ORDER BY c.value, a.count DESC, a.keywords`.compile(db);
    },
  }));
}
