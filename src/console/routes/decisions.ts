/**
 * "Why did it (not) answer" (docs/repeater.md#why): the repeater's decisions kept in the database
 * (src/store/decision-log.ts), one row per message with its text, sender, group name and the one
 * cause that decided it, paged newest first and searchable; this process's last decisions in
 * memory (scope=process); the groups that have any; and "try a sentence", which runs the decision
 * for a typed message without sending, learning or touching cool-downs.
 */
import { parseCq, plainTextOf, renderCq } from '../../onebot/cq-code.ts';
import { explainDecision, type KeptDecision } from '../../repeater/index.ts';
import type { StoredDecision } from '../../store/decision-log.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { DecisionGroups, Decisions, DecisionsQuery, TryBody, TryResult } from '../decision-schemas.ts';
import { CodedError, invalidField } from '../errors.ts';

const tags = ['repeater'];
/** Decisions whose answers are looked up per request at most (each is one corpus read). */
const EXPLAINED_MAX = 20;
/** How long a page waits for an account's group list, and how long a failed account is not asked. */
const NAMES_WAIT_MS = 300;
const NAMES_RETRY_MS = 60_000;

type View = ReturnType<typeof keptView> & { answers?: JudgedAnswer[] };

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
    if (!found) throw new CodedError(503, 'repeater_elsewhere', {}, 'the repeater does not run in this process');
    return found;
  };
  /**
   * Group names from the accounts' group lists (cached 30 s by ChatLists). Never holds a page up: an
   * account that does not answer within NAMES_WAIT_MS is left out (its list still fills the cache
   * for the next page), and one that failed is not asked again for a while.
   */
  const unavailable = new Map<number, number>();
  const groupNames = async (selfIds: Iterable<number>): Promise<Map<number, string>> => {
    const names = new Map<number, string>();
    const now = ctx.deps.clock.monotonicMs();
    const asked = [...new Set(selfIds)].filter((id) => (unavailable.get(id) ?? 0) <= now);
    const lists = await Promise.all(
      asked.map((id) => {
        const list = ctx.deps.chatLists.groups(id).catch(() => {
          unavailable.set(id, ctx.deps.clock.monotonicMs() + NAMES_RETRY_MS);
          return [];
        });
        const late = new Promise<[]>((resolve) => setTimeout(() => resolve([]), NAMES_WAIT_MS).unref());
        return Promise.race([list, late]);
      }),
    );
    for (const list of lists) for (const group of list) if (group.name) names.set(group.groupId, group.name);
    return names;
  };

  api.get(
    '/repeater/decisions',
    {
      config: { members: true },
      schema: {
        tags,
        summary: "The repeater's decisions, newest first, each with the one cause that decided it",
        querystring: DecisionsQuery,
        response: { 200: Decisions },
      },
    },
    async (request) => {
      const { group_id: groupId, limit = 50, explain = false, scope = 'kept' } = request.query;
      let decisions: View[];
      let nextBefore: number | null = null;
      const log = watch().log;
      if (scope === 'process' || !log) {
        // Without a decision log (a console without a database of its own), this process's memory.
        if (groupId === undefined && scope === 'process') {
          throw invalidField('query.group_id', 'required', 'query.group_id is required with scope=process');
        }
        const ring = watch().decisions;
        const groupIds = groupId !== undefined ? [groupId] : ring.groups().map((g) => g.groupId);
        decisions = groupIds
          .flatMap((id) => ring.recent(id, Math.min(limit, 100)))
          .sort((x, y) => y.atMs - x.atMs)
          .slice(0, limit)
          .map(processView);
      } else {
        const rows = await log.page({
          ...(groupId !== undefined ? { groupId } : {}),
          ...(request.query.q ? { text: request.query.q } : {}),
          ...(request.query.before !== undefined ? { beforeId: request.query.before } : {}),
          limit: limit + 1,
        });
        const page = rows.slice(0, limit);
        if (rows.length > limit) nextBefore = page[page.length - 1]?.id ?? null;
        decisions = page.map(keptView);
      }
      // This process's memory is a diagnostic view, polled by tests and tools: no list is asked for it.
      const names = scope === 'process' ? new Map<number, string>() : await groupNames(decisions.map((d) => d.self_id));
      for (const d of decisions) d.group_name = names.get(d.group_id) ?? null;
      const judge = watch().answers;
      if (explain && judge) {
        const lookedUp = decisions.filter((d) => d.cache !== null).slice(0, EXPLAINED_MAX);
        await Promise.all(
          lookedUp.map(async (d) => {
            const answers = await judge({ groupId: d.group_id, keywords: d.keywords, threshold: d.threshold });
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
      return { group_id: groupId ?? null, decisions, next_before: nextBefore };
    },
  );

  api.get(
    '/repeater/groups',
    {
      schema: {
        tags,
        summary: 'Groups with kept repeater decisions, the most recently active first',
        response: { 200: DecisionGroups },
      },
    },
    async () => {
      const log = watch().log;
      const ring = watch().decisions.groups();
      const lastReason = new Map(ring.map((g) => [g.groupId, g.last?.reason ?? null]));
      const sinceStart = new Map(ring.map((g) => [g.groupId, g.total]));
      const groups = log
        ? await log.groups(1000)
        : ring.map((g) => ({ groupId: g.groupId, selfId: g.last?.selfId ?? 0, kept: g.kept, lastAt: g.lastAtMs }));
      const names = await groupNames(groups.map((g) => g.selfId));
      return groups.map((group) => ({
        group_id: group.groupId,
        group_name: names.get(group.groupId) ?? null,
        kept: group.kept,
        total: sinceStart.get(group.groupId) ?? 0,
        last_at: group.lastAt,
        last_reason: lastReason.get(group.groupId) ?? null,
      }));
    },
  );

  api.post(
    '/repeater/try',
    {
      schema: {
        tags,
        summary:
          'What the bot would do with a message in a group, and why, with the answers it would weigh; nothing is sent, learned or changed (read level)',
        body: TryBody,
        response: { 200: TryResult },
      },
    },
    async (request) => {
      const { group_id: groupId, text } = request.body;
      const tryIt = watch().trySentence;
      if (!tryIt) throw new CodedError(503, 'repeater_elsewhere', {}, 'the repeater does not run in this process');
      const selfId = request.body.self_id ?? (await accountOf(groupId));
      const segments = parseCq(text);
      const tried = await tryIt(groupId, selfId, { rawMessage: renderCq(segments), plainText: plainTextOf(segments) });
      return {
        group_id: groupId,
        self_id: selfId,
        outcome: tried.outcome,
        reason: tried.reason,
        cause: tried.cause,
        keywords: tried.keywords,
        threshold: tried.threshold,
        lowest_threshold: tried.lowestThreshold,
        answers: tried.answers.map((a) => ({
          answer_keywords: a.answerKeywords,
          sample: a.sample,
          group_id: a.groupId,
          count: a.count,
          origin: a.origin,
          verdict: a.verdict,
        })),
      };
    },
  );

  /** The account the group was last heard on, else the first connected one (0: none). */
  async function accountOf(groupId: number): Promise<number> {
    const last = (await watch().log?.page({ groupId, limit: 1 }))?.[0];
    if (last) return last.self_id;
    const recent = watch().decisions.recent(groupId, 1)[0];
    if (recent) return recent.decision.selfId;
    return ctx.deps.connectedBots?.()[0]?.selfId ?? 0;
  }
}

function keptView(row: StoredDecision) {
  return {
    id: row.id as number | null,
    at: row.at,
    group_id: row.group_id,
    group_name: null as string | null,
    self_id: row.self_id,
    user_id: row.user_id,
    sender_name: row.sender_name,
    message_id: row.message_id,
    raw_message: row.raw_message,
    outcome: row.outcome,
    reason: row.reason,
    cause: parseCause(row.cause, row.reason),
    keywords: row.keywords,
    answer_keywords: row.answer_keywords,
    texts: parseTexts(row.texts),
    learn: row.learn,
    cache: row.cache,
    latency_ms: Math.round(row.latency_us / 10) / 100,
    threshold: row.threshold,
    explanation: explainDecision({
      reason: row.reason as KeptDecision['decision']['reason'],
      threshold: row.threshold,
      keywords: row.keywords,
      texts: parseTexts(row.texts),
      answerKeywords: row.answer_keywords,
    }),
  };
}

function processView({ atMs, decision }: KeptDecision): View {
  return {
    id: null,
    at: atMs,
    group_id: decision.groupId,
    group_name: null,
    self_id: decision.selfId,
    user_id: decision.userId,
    sender_name: decision.senderName,
    message_id: decision.messageId,
    raw_message: decision.rawMessage,
    outcome: decision.outcome,
    reason: decision.reason,
    cause: decision.cause ?? { code: decision.reason },
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

function parseCause(text: string, reason: string): { code: string; params?: Record<string, string | number> } {
  try {
    const parsed = JSON.parse(text) as { code?: unknown; params?: Record<string, string | number> };
    if (typeof parsed.code === 'string')
      return parsed.params ? { code: parsed.code, params: parsed.params } : { code: parsed.code };
  } catch {
    // A row written by hand or cut short: the reason alone.
  }
  return { code: reason };
}

function parseTexts(text: string): string[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? parsed.map(String) : [];
  } catch {
    return [];
  }
}
