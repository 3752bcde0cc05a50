/**
 * Lifting a ban at any time (POST /api/corpus/answers/{id}/unban, docs/rules.md#activity-log):
 * the answer's ban rows after its context, in one group or everywhere, and its keywords on the
 * groups' blacklists, each kept in the entry's snapshot so the unban itself can be undone.
 */
import { EVERYWHERE_GROUP, type ActivityActor } from '../domain/activity.ts';
import { exec, rows, type Program } from '../sql/program.ts';
import { bound } from '../sql/query.ts';
import { writeActivity, type ActivityEntry } from './activity-programs.ts';
import {
  banSnapshot,
  loadAnswer,
  loadContext,
  type BanSnapshot,
  type Db,
  type ListSnapshot,
} from './moderation-programs.ts';
import { ModerationError } from './moderation-types.ts';

export interface UnbanResult {
  entry: ActivityEntry;
  /** The context's keywords: the bot's caches for it are dropped. */
  keywords: string;
  answerKeywords: string;
  /** The blacklists the keywords were taken off (the chat side forgets them in memory too). */
  listGroups: number[];
}

/** `groupId` null: everywhere (every group's bans and lists, and the everywhere group's). */
export function* unbanAnswer(
  db: Db,
  answerId: number,
  groupId: number | null,
  actor: ActivityActor,
  now: number,
): Program<UnbanResult> {
  const answer = yield* loadAnswer(db, answerId);
  const context = yield* loadContext(db, Number(answer.context_id));
  let banQuery = db
    .selectFrom('context_ban')
    .selectAll()
    .where('context_id', '=', Number(context.id))
    .where('keywords', '=', answer.keywords);
  if (groupId !== null) banQuery = banQuery.where('group_id', '=', groupId);
  const bans: BanSnapshot[] = (yield* rows(bound(banQuery.orderBy('id')))).map(banSnapshot);
  const lists = yield* takeOffLists(db, answer.keywords, groupId);
  if (bans.length === 0 && lists.length === 0) {
    const where = groupId === null ? 'anywhere' : `in group ${groupId}`;
    throw new ModerationError('conflict', `id: answer ${answerId} is not banned ${where}`);
  }
  if (bans.length > 0) {
    yield* exec(
      bound(
        db.deleteFrom('context_ban').where(
          'id',
          'in',
          bans.map((ban) => ban.id),
        ),
      ),
    );
  }
  const entry = yield* writeActivity(db, {
    time: now,
    kind: 'unban',
    actor,
    scope: groupId === null ? 'everywhere' : 'group',
    groupId: groupId ?? EVERYWHERE_GROUP,
    contextId: Number(context.id),
    answerId,
    contextKeywords: context.keywords,
    answerKeywords: answer.keywords,
    params: { bans: bans.length, lists: lists.length },
    snapshot: { kind: 'unban', contextId: Number(context.id), bans, lists },
  });
  return {
    entry,
    keywords: context.keywords,
    answerKeywords: answer.keywords,
    listGroups: [...new Set(lists.map((list) => list.groupId))],
  };
}

/** Removes `keywords` from the blacklists of `groupId` (null: all), saying what it removed. */
function* takeOffLists(db: Db, keywords: string, groupId: number | null): Program<ListSnapshot[]> {
  let query = db.selectFrom('blacklist').selectAll();
  if (groupId !== null) query = query.where('group_id', '=', groupId);
  const removed: ListSnapshot[] = [];
  for (const row of yield* rows(bound(query.orderBy('group_id')))) {
    const active = parseList(row.answers);
    const reserve = parseList(row.answers_reserve);
    if (!active.includes(keywords) && !reserve.includes(keywords)) continue;
    const rowGroup = Number(row.group_id);
    if (active.includes(keywords)) removed.push({ groupId: rowGroup, keywords, list: 'active' });
    if (reserve.includes(keywords)) removed.push({ groupId: rowGroup, keywords, list: 'reserve' });
    yield* exec(
      bound(
        db
          .updateTable('blacklist')
          .set({
            answers: JSON.stringify(active.filter((each) => each !== keywords)),
            answers_reserve: JSON.stringify(reserve.filter((each) => each !== keywords)),
          })
          .where('group_id', '=', rowGroup),
      ),
    );
  }
  return removed;
}

/** Undo of an unban: the ban rows and blacklist entries go back as they were. */
export function* restoreUnban(db: Db, bans: readonly BanSnapshot[], lists: readonly ListSnapshot[], contextId: number) {
  for (const ban of bans) {
    yield* exec(
      bound(
        db.insertInto('context_ban').values({
          context_id: contextId,
          keywords: ban.keywords,
          group_id: ban.groupId,
          reason: ban.reason,
          time: ban.time,
        }),
      ),
    );
  }
  for (const list of lists) {
    const [row] = yield* rows(bound(db.selectFrom('blacklist').selectAll().where('group_id', '=', list.groupId)));
    const active = parseList(row?.answers ?? '[]');
    const reserve = parseList(row?.answers_reserve ?? '[]');
    const target = list.list === 'active' ? active : reserve;
    if (!target.includes(list.keywords)) target.push(list.keywords);
    const values = { answers: JSON.stringify(active), answers_reserve: JSON.stringify(reserve) };
    yield* exec(
      bound(
        db
          .insertInto('blacklist')
          .values({ group_id: list.groupId, ...values })
          .onConflict((oc) => oc.column('group_id').doUpdateSet(values)),
      ),
    );
  }
}

function parseList(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}
