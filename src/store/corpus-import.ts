/**
 * Importing contexts (docs/guide/backups.md): one write unit of work per
 * batch; each context is read, merged with the domain's import rules and written only when it
 * changed, so a second import of the same file writes nothing.
 */
import type { Context } from '../domain/corpus.ts';
import { mergeImported, type ImportDelta } from '../domain/corpus-import.ts';
import { STORE_CHUNK } from '../common/limits.ts';
import { chunks, insertContext, putAnswers, wholeContextValues } from './corpus-programs.ts';
import type { CorpusQueries, MessageRow } from './corpus-queries.ts';
import { answersWithMessages, banFromRow, contextFromRows } from './context-rows.ts';
import { keywordsHash } from '../domain/keywords-hash.ts';
import { exec, first, rows, type Program } from '../sql/program.ts';

/** The whole stored context of a key (every answer and message), or null. */
export function* loadWholeContext(q: CorpusQueries, keywords: string): Program<Context | null> {
  const row = yield* first(q.contextByHash({ hash: keywordsHash(keywords) }));
  if (!row) return null;
  const answerRows = yield* rows(q.answersOfContext({ contextId: row.id }));
  const messageRows = answerRows.length ? yield* rows(q.messagesOfContext({ contextId: row.id })) : [];
  const banRows = yield* rows(q.bansOfContext({ contextId: row.id }));
  const answers = [...answersWithMessages(answerRows, messageRows).values()];
  return contextFromRows(row, answers, banRows.map(banFromRow));
}

export function* importContexts(q: CorpusQueries, contexts: readonly Context[]): Program<ImportDelta[]> {
  const deltas: ImportDelta[] = [];
  for (const incoming of contexts) {
    const stored = yield* loadForMerge(q, incoming);
    const merge = mergeImported(stored?.context ?? null, incoming);
    if (merge.context !== null) {
      if (stored === null) {
        yield* insertContext(q, merge.context);
      } else {
        // Only what changed is written: a hot key with thousands of messages costs what it gains.
        yield* exec(q.upsertContext(wholeContextValues(merge.context)));
        yield* putAnswers(q, stored.id, merge.changedAnswers);
        for (const ban of merge.newBans) {
          yield* exec(
            q.insertBan({
              contextId: stored.id,
              keywords: ban.keywords,
              groupId: ban.groupId,
              reason: ban.reason,
              time: ban.time,
            }),
          );
        }
      }
    }
    deltas.push(merge.delta);
  }
  return deltas;
}

/**
 * The stored context as far as merging `incoming` needs it: every answer row (for the counts) but
 * the messages only of the answers `incoming` also has.
 */
function* loadForMerge(q: CorpusQueries, incoming: Context): Program<{ id: number; context: Context } | null> {
  const row = yield* first(q.contextByHash({ hash: keywordsHash(incoming.keywords) }));
  if (!row) return null;
  const answerRows = yield* rows(q.answersOfContext({ contextId: row.id }));
  const offered = new Set(incoming.answers.map((answer) => `${answer.groupId}\u0000${answer.keywords}`));
  const wanted = answerRows
    .filter((answer) => offered.has(`${answer.group_id}\u0000${answer.keywords}`))
    .map((answer) => answer.id);
  const messageRows: MessageRow[] = [];
  for (const batch of chunks(wanted, STORE_CHUNK.orphanDelete))
    messageRows.push(...(yield* rows(q.messagesOfAnswers(batch))));
  const banRows = yield* rows(q.bansOfContext({ contextId: row.id }));
  const answers = [...answersWithMessages(answerRows, messageRows).values()];
  return { id: row.id, context: contextFromRows(row, answers, banRows.map(banFromRow)) };
}
