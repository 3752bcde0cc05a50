import type { CorpusQueries } from '../../src/store/corpus-queries.ts';
import { compileTemplate } from './bare.ts';

/** The store's hot statements, compiled once for the bare drivers (distinct example values). */
export function bareStatements(q: CorpusQueries) {
  return {
    snapshotContext: compileTemplate(q.snapshotContext, { hash: '\u0001hash' }),
    snapshotAnswers: compileTemplate(q.snapshotAnswers, { contextId: -1001, answersCap: -1002, messagesOffset: -1003 }),
    contextIdByHash: compileTemplate(q.contextIdByHash, { hash: '\u0001hash' }),
    insertContextIfMissing: compileTemplate(q.insertContextIfMissing, {
      keywords: '\u0001keywords',
      hash: '\u0001hash',
      time: -1001,
      triggerCount: -1002,
      clearTime: -1003,
      answerCountSum: -1004,
    }),
    touchContext: compileTemplate(q.touchContext, { hash: '\u0001hash', time: -1001 }),
    insertAnswerIfMissing: compileTemplate(q.insertAnswerIfMissing, {
      contextId: -1001,
      keywords: '\u0001keywords',
      hash: '\u0001hash',
      groupId: -1002,
      time: -1003,
    }),
    touchAnswer: compileTemplate(q.touchAnswer, { contextId: -1001, hash: '\u0001hash', groupId: -1002, time: -1003 }),
    insertMessage: compileTemplate(q.insertMessage, { answerId: -1001, message: '\u0001message' }),
  };
}

export type BareStatements = ReturnType<typeof bareStatements>;
