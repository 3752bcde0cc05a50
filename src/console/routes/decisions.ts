/**
 * "Why did it (not) answer": the last decisions of a group from the repeater's ring
 * (src/repeater/decision-ring.ts), each with its reason, keywords, answer, cache source, latency
 * and one sentence saying why; and the groups that have any.
 */
import { explainDecision, type KeptDecision } from '../../repeater/index.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { DecisionGroups, Decisions, DecisionsQuery } from '../dashboard-schemas.ts';
import { HttpError } from '../errors.ts';

const tags = ['repeater'];
/** Decisions whose answers are looked up per request at most (each is one corpus read). */
const EXPLAINED_MAX = 20;

interface JudgedAnswer {
  answer_keywords: string;
  group_id: number;
  count: number;
  sample: string;
  verdict: string;
}

export function decisionRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const watch = () => {
    const found = ctx.deps.watch;
    if (!found) throw new HttpError(503, 'the repeater does not run in this process');
    return found;
  };

  api.get(
    '/repeater/decisions',
    {
      schema: {
        tags,
        summary: 'The last decisions of the repeater in a group, each with why',
        querystring: DecisionsQuery,
        response: { 200: Decisions },
      },
    },
    async (request) => {
      const ring = watch().decisions;
      const { group_id: groupId, limit = 50, explain = false } = request.query;
      const decisions = ring.recent(groupId, limit).map(view);
      const judge = watch().answers;
      if (explain && judge) {
        const lookedUp = decisions.filter((d) => d.cache !== null).slice(0, EXPLAINED_MAX);
        await Promise.all(
          lookedUp.map(async (d) => {
            const answers = await judge({ groupId, keywords: d.keywords, threshold: d.threshold });
            d.answers = answers.map((a) => ({
              answer_keywords: a.answerKeywords,
              group_id: a.groupId,
              count: a.count,
              sample: a.sample,
              verdict: a.verdict,
            }));
          }),
        );
      }
      return { group_id: groupId, kept_per_group: ring.perGroup, decisions };
    },
  );

  api.get(
    '/repeater/groups',
    {
      schema: {
        tags,
        summary: 'Groups with recent repeater decisions, the most recently active first',
        response: { 200: DecisionGroups },
      },
    },
    async () =>
      watch()
        .decisions.groups()
        .map((group) => ({
          group_id: group.groupId,
          kept: group.kept,
          total: group.total,
          last_at: group.lastAtMs,
          last_reason: group.last?.reason ?? null,
        })),
  );
}

function view({ atMs, decision }: KeptDecision): ReturnType<typeof viewOf> & { answers?: JudgedAnswer[] } {
  return viewOf(atMs, decision);
}

function viewOf(atMs: number, decision: KeptDecision['decision']) {
  return {
    at: atMs,
    self_id: decision.selfId,
    user_id: decision.userId,
    message_id: decision.messageId,
    outcome: decision.outcome,
    reason: decision.reason,
    keywords: decision.keywords,
    answer_keywords: decision.answerKeywords,
    texts: [...decision.texts],
    learn: decision.learn,
    cache: decision.cache,
    latency_ms: Math.round(decision.latencyMs * 100) / 100,
    threshold: decision.threshold,
    explanation: explainDecision(decision),
  };
}
