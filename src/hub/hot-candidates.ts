/**
 * Pool and recent hot words under the agreement rule (docs/hub.md#agreement): candidate contexts
 * (ranked by their stored totals) re-scored by the answers enough cohorts agree on.
 */
import type { HotCandidate } from './hub-types.ts';
import { parseMessages } from './merge.ts';
import type { AgreedHotAnswerRow, HotContextRow } from './queries.ts';

/**
 * Each candidate with its top `per` agreed answers (served count, then time) and, as its score,
 * the sum of its agreed answers' served counts; candidates without one are dropped. Best first.
 */
export function hotCandidatesOf(
  contexts: readonly HotContextRow[],
  answers: readonly AgreedHotAnswerRow[],
  per: number,
): HotCandidate[] {
  const byContext = new Map<number, AgreedHotAnswerRow[]>();
  for (const answer of answers) {
    const id = Number(answer.context_id);
    const list = byContext.get(id) ?? [];
    list.push(answer);
    byContext.set(id, list);
  }
  const candidates: (HotCandidate & { id: number })[] = [];
  for (const context of contexts) {
    const id = Number(context.id);
    const agreed = byContext.get(id);
    if (!agreed || agreed.length === 0) continue;
    agreed.sort((a, b) => Number(b.count) - Number(a.count) || Number(b.time) - Number(a.time));
    candidates.push({
      id,
      keywords: context.keywords,
      score: agreed.reduce((sum, answer) => sum + Number(answer.count), 0),
      answers: agreed.slice(0, per).map((answer) => ({
        keywords: answer.keywords,
        count: Number(answer.count),
        messages: parseMessages(answer.messages),
      })),
    });
  }
  candidates.sort((a, b) => b.score - a.score || a.id - b.id);
  return candidates.map(({ keywords, score, answers: top }) => ({ keywords, score, answers: top }));
}
