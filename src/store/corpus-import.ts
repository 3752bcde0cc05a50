/**
 * Importing contexts (README "Backups, moving and importing a corpus"): one write unit of work per
 * batch; each context is read, merged with the domain's import rules and written only when it
 * changed, so a second import of the same file writes nothing.
 */
import type { Context } from '../domain/corpus.ts';
import { mergeImported, type ImportDelta } from '../domain/corpus-import.ts';
import { insertContext, saveContext } from './corpus-programs.ts';
import type { AnswerRow, BanRow, ContextRow, CorpusQueries, MessageRow } from './corpus-queries.ts';
import { answersWithMessages, banFromRow, contextFromRows } from './context-rows.ts';
import { keywordsHash } from './keywords-hash.ts';
import { first, rows, type Program } from './program.ts';

/** The whole stored context of a key (every answer and message), or null. */
export function* loadWholeContext(q: CorpusQueries, keywords: string): Program<Context | null> {
  const row = yield* first<ContextRow>(q.contextByHash({ hash: keywordsHash(keywords) }));
  if (!row) return null;
  const answerRows = yield* rows<AnswerRow>(q.answersOfContext({ contextId: row.id }));
  const messageRows = answerRows.length ? yield* rows<MessageRow>(q.messagesOfContext({ contextId: row.id })) : [];
  const banRows = yield* rows<BanRow>(q.bansOfContext({ contextId: row.id }));
  const answers = [...answersWithMessages(answerRows, messageRows).values()];
  return contextFromRows(row, answers, banRows.map(banFromRow));
}

export function* importContexts(q: CorpusQueries, contexts: readonly Context[]): Program<ImportDelta[]> {
  const deltas: ImportDelta[] = [];
  for (const incoming of contexts) {
    const stored = yield* loadWholeContext(q, incoming.keywords);
    const merge = mergeImported(stored, incoming);
    if (merge.context !== null) {
      if (stored === null) yield* insertContext(q, merge.context);
      else yield* saveContext(q, merge.context);
    }
    deltas.push(merge.delta);
  }
  return deltas;
}
