/**
 * The community protocol's bodies (docs/rules.md#community-http,
 * #hub-protocol): the context the hub answers, the contribute bodies we send, the enroll
 * answer and the usage figures. Parsing is lenient as in the origin: missing numbers take their
 * defaults and non-object list items are ignored.
 */
import type { Answer, Ban, Context, LearnInput } from '../domain/corpus.ts';
import { COMMUNITY_GROUP_ID } from '../domain/deidentify.ts';
import type { CommunityUsage } from '../corpus/status.ts';
import { isObject } from './http.ts';

function int(value: unknown, fallback: number): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return fallback;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : value === null || value === undefined ? '' : String(value);
}

function objects(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** A context object from GET /context (docs/rules.md#community-http). */
export function parseContext(body: Record<string, unknown>): Context {
  const answers: Answer[] = objects(body.answers).map((answer) => ({
    keywords: str(answer.keywords),
    groupId: int(answer.group_id, 0),
    count: int(answer.count, 1),
    time: int(answer.time, 0),
    messages: Array.isArray(answer.messages)
      ? answer.messages.filter((message) => message !== null && message !== undefined).map(str)
      : [],
  }));
  const bans: Ban[] = objects(body.ban).map((ban) => ({
    keywords: str(ban.keywords),
    groupId: int(ban.group_id, 0),
    reason: str(ban.reason),
    time: int(ban.time, 0),
  }));
  return {
    keywords: str(body.keywords),
    time: int(body.time, 0),
    triggerCount: int(body.trigger_count ?? body.count, 1),
    clearTime: int(body.clear_time, 0),
    answers,
    bans,
  };
}

/**
 * POST /contribute insert body (docs/rules.md#community-http). Every answer goes out with group 0 and no bans are sent,
 * whatever the caller passed: no group or user number leaves the deployment.
 */
export function insertBody(context: Context): Record<string, unknown> {
  return {
    op: 'insert',
    context: {
      keywords: context.keywords,
      time: context.time,
      trigger_count: context.triggerCount,
      clear_time: context.clearTime,
      answers: context.answers.map((answer) => ({
        keywords: answer.keywords,
        group_id: COMMUNITY_GROUP_ID,
        count: answer.count,
        time: answer.time,
        messages: [...answer.messages],
      })),
      ban: [],
    },
  };
}

/** POST /contribute upsert body (docs/rules.md#community-http), always with group 0. */
export function upsertBody(input: LearnInput): Record<string, unknown> {
  return {
    op: 'upsert_answer',
    keywords: input.keywords,
    group_id: COMMUNITY_GROUP_ID,
    answer_keywords: input.answerKeywords,
    answer_time: input.answerTime,
    message: input.message,
    append_on_existing: input.appendOnExisting,
  };
}

/** GET /usage (docs/rules.md#usage). */
export function parseUsage(body: Record<string, unknown>): CommunityUsage {
  const updated = body.updated_at;
  return {
    read_lookups: int(body.read_lookups, 0),
    read_hits: int(body.read_hits, 0),
    contribute_ok: int(body.contribute_ok, 0),
    updated_at: updated === null || updated === undefined ? null : int(updated, 0),
    source: 'community_stats',
  };
}

/** What an enroll answer carries (docs/rules.md#enroll); null when it has no token. */
export interface EnrollAnswer {
  token: string;
  apiBase: string;
  contribute: boolean | null;
  expiresAt: number | null;
}

export function parseEnrollAnswer(body: unknown): EnrollAnswer | null {
  if (!isObject(body)) return null;
  const token = typeof body.corpus_token === 'string' ? body.corpus_token.trim() : '';
  if (token === '') return null;
  const policy = isObject(body.policy) ? body.policy : {};
  const expires = body.expires_at;
  return {
    token,
    apiBase: typeof body.api_base === 'string' ? body.api_base : '',
    contribute: typeof policy.contribute === 'boolean' ? policy.contribute : null,
    expiresAt: typeof expires === 'number' && Number.isFinite(expires) ? Math.trunc(expires) : null,
  };
}

/** One answer the hub withdrew (GET {api_base}/withdrawn). */
export interface WithdrawnAnswer {
  keywords: string;
  answerKeywords: string;
  withdrawnAt: number;
}

export interface WithdrawnPage {
  asOf: number;
  items: WithdrawnAnswer[];
}

/** A withdrawn page, leniently: items without both keywords are skipped. */
export function parseWithdrawn(json: Record<string, unknown>): WithdrawnPage {
  const items: WithdrawnAnswer[] = [];
  for (const item of Array.isArray(json.items) ? (json.items as unknown[]) : []) {
    if (typeof item !== 'object' || item === null) continue;
    const { keywords, answer_keywords: answerKeywords, withdrawn_at: at } = item as Record<string, unknown>;
    if (typeof keywords !== 'string' || typeof answerKeywords !== 'string' || keywords.trim() === '') continue;
    items.push({ keywords, answerKeywords, withdrawnAt: typeof at === 'number' && Number.isFinite(at) ? at : 0 });
  }
  const asOf = typeof json.as_of === 'number' && Number.isFinite(json.as_of) ? json.as_of : 0;
  return { asOf, items };
}
