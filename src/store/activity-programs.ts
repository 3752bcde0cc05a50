/**
 * The units of work behind the activity log (activity-log.ts): writing an entry inside any
 * transaction (console moderation writes its entry in the same one as its change), and the
 * entry as the store hands it out.
 */
import type { Kysely, Selectable } from 'kysely';
import { stripNul } from '../common/text.ts';
import type { ActivityActor, ActivityKind, ActivityParams, ActivityScope } from '../domain/activity.ts';
import { first, type Program } from '../sql/program.ts';
import { bound } from '../sql/query.ts';
import type { ActivityLogTable, Database } from './schema.ts';

export type ActivityRow = Selectable<ActivityLogTable>;

/** What the store hands out: the row with its parameters parsed and its snapshot left out. */
export interface ActivityEntry {
  id: number;
  time: number;
  kind: ActivityKind;
  actor: { kind: ActivityActor['kind']; level: string; address: string; userId: number; name: string };
  scope: ActivityScope;
  groupId: number;
  contextId: number;
  answerId: number;
  contextKeywords: string;
  answerKeywords: string;
  params: ActivityParams;
  /** Whether the entry keeps what undo puts back. */
  undoable: boolean;
  undoneAt: number;
  undoneBy: string;
}

export interface ActivityWrite {
  time: number;
  kind: ActivityKind;
  actor: ActivityActor;
  scope: ActivityScope;
  groupId: number;
  contextId?: number;
  answerId?: number;
  contextKeywords?: string;
  answerKeywords?: string;
  params?: ActivityParams;
  /** Serialised as JSON: what undo needs. */
  snapshot?: unknown;
}

export function* writeActivity(db: Kysely<Database>, write: ActivityWrite): Program<ActivityEntry> {
  const actor = write.actor;
  const row = {
    time: write.time,
    kind: write.kind,
    actor_kind: actor.kind,
    actor_level: actor.kind === 'console' ? stripNul(actor.level) : '',
    actor_address: actor.kind === 'console' ? stripNul(actor.address) : '',
    actor_user_id: actor.kind === 'chat' ? actor.userId : 0,
    actor_name: actor.kind === 'chat' || actor.kind === 'hub' || actor.kind === 'system' ? stripNul(actor.name) : '',
    scope: write.scope,
    group_id: write.groupId,
    context_id: write.contextId ?? 0,
    answer_id: write.answerId ?? 0,
    context_keywords: stripNul(write.contextKeywords ?? ''),
    answer_keywords: stripNul(write.answerKeywords ?? ''),
    params: stripNul(JSON.stringify(write.params ?? {})),
    snapshot: write.snapshot === undefined ? '' : JSON.stringify(write.snapshot),
    undone_at: 0,
    undone_by: '',
  };
  const inserted = yield* first(bound(db.insertInto('activity_log').values(row).returning('id')));
  return toActivityEntry({ ...row, id: Number(inserted?.id) });
}

export function toActivityEntry(row: ActivityRow): ActivityEntry {
  return {
    id: Number(row.id),
    time: Number(row.time),
    kind: row.kind,
    actor: {
      kind: row.actor_kind,
      level: row.actor_level,
      address: row.actor_address,
      userId: Number(row.actor_user_id),
      name: row.actor_name,
    },
    scope: row.scope,
    groupId: Number(row.group_id),
    contextId: Number(row.context_id),
    answerId: Number(row.answer_id),
    contextKeywords: row.context_keywords,
    answerKeywords: row.answer_keywords,
    params: parseParams(row.params),
    undoable: row.snapshot !== '',
    undoneAt: Number(row.undone_at),
    undoneBy: row.undone_by,
  };
}

function parseParams(text: string): ActivityParams {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as ActivityParams) : {};
  } catch {
    return {};
  }
}

/** The actor as one line for `undone_by` and logs: `write from 10.0.0.2`, `member 123 (name)`. */
export function actorLine(actor: ActivityActor): string {
  switch (actor.kind) {
    case 'console':
      return `${actor.level} from ${actor.address}`;
    case 'chat':
      return `member ${actor.userId}${actor.name === '' ? '' : ` (${actor.name})`}`;
    default:
      return `${actor.kind} ${actor.name}`;
  }
}
