/**
 * Bringing a corpus over from another bot (docs/guide/backups.md): the
 * origin Pallas-Bot's PostgreSQL database (`--from pallas-pg URL`) or `mongoexport` files of its
 * MongoDB `context` and `blacklist` collections (`--from pallas-mongo FILE…`), and the SQLite
 * database of nonebot-plugin-learning-chat (`--from learning-chat FILE`). Both are read
 * as a stream of contexts merged with the import rules, so a second run changes nothing; the
 * per-group blacklists are united with the ones here.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { Answer, Ban, Blacklist, Context } from '../../domain/corpus.ts';
import { CORPUS_FILE_FORMAT, CORPUS_FILE_VERSION, CorpusFileError, type CorpusFileHeader } from './format.ts';
import { importContextStream, type CorpusTarget, type ImportOptions, type ImportReport } from './import.ts';
import { errorMessage } from '../../common/errors.ts';

export interface BlacklistTarget {
  get(groupId: number): Promise<Blacklist | null>;
  put(blacklist: Blacklist): Promise<void>;
}

export interface ForeignImportReport extends ImportReport {
  blacklists_merged: number;
}

const PG_PAGE = 500;

function header(generator: string, contexts: number): CorpusFileHeader {
  return {
    format: CORPUS_FILE_FORMAT,
    version: CORPUS_FILE_VERSION,
    exported_at: 0,
    contexts,
    anonymised: false,
    groups: null,
    generator,
  };
}

async function mergeBlacklists(target: BlacklistTarget, lists: readonly Blacklist[]): Promise<number> {
  for (const list of lists) {
    const stored = await target.get(list.groupId);
    const union = (a: readonly string[], b: readonly string[]) => [...new Set([...a, ...b])];
    await target.put({
      groupId: list.groupId,
      answers: union(stored?.answers ?? [], list.answers),
      answersReserve: union(stored?.answersReserve ?? [], list.answersReserve),
    });
  }
  return lists.length;
}

/** The origin's PostgreSQL tables (context, context_answer, context_answer_message, context_ban, blacklist). */
export async function importPallasPg(
  target: CorpusTarget,
  blacklists: BlacklistTarget,
  url: string,
  options: ImportOptions = {},
): Promise<ForeignImportReport> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const total = Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM context')).rows[0]?.n ?? 0);
    async function* contexts(): AsyncGenerator<Context> {
      for (let after = 0; ;) {
        const page = await client.query<{
          id: string;
          keywords: string;
          time: string;
          trigger_count: number;
          clear_time: string;
        }>('SELECT id, keywords, time, trigger_count, clear_time FROM context WHERE id > $1 ORDER BY id LIMIT $2', [
          after,
          PG_PAGE,
        ]);
        if (page.rows.length === 0) return;
        const ids = page.rows.map((row) => row.id);
        const answers = await client.query<{
          id: string;
          context_id: string;
          keywords: string;
          group_id: string;
          count: number;
          time: string;
        }>(
          'SELECT id, context_id, keywords, group_id, count, time FROM context_answer WHERE context_id = ANY($1::bigint[]) ORDER BY id',
          [ids],
        );
        const messages = await client.query<{ answer_id: string; message: string }>(
          'SELECT answer_id, message FROM context_answer_message WHERE answer_id = ANY($1::bigint[]) ORDER BY id',
          [answers.rows.map((row) => row.id)],
        );
        const bans = await client.query<{
          context_id: string;
          keywords: string;
          group_id: string;
          reason: string | null;
          time: string;
        }>(
          'SELECT context_id, keywords, group_id, reason, time FROM context_ban WHERE context_id = ANY($1::bigint[]) ORDER BY id',
          [ids],
        );
        const messagesOf = groupBy(messages.rows, (row) => row.answer_id);
        const answersOf = groupBy(answers.rows, (row) => row.context_id);
        const bansOf = groupBy(bans.rows, (row) => row.context_id);
        for (const row of page.rows) {
          yield {
            keywords: row.keywords,
            time: Number(row.time),
            triggerCount: row.trigger_count,
            clearTime: Number(row.clear_time),
            answers: (answersOf.get(row.id) ?? []).map((answer): Answer => ({
              keywords: answer.keywords,
              groupId: Number(answer.group_id),
              count: answer.count,
              time: Number(answer.time),
              messages: (messagesOf.get(answer.id) ?? []).map((message) => message.message),
            })),
            bans: (bansOf.get(row.id) ?? []).map((ban): Ban => ({
              keywords: ban.keywords,
              groupId: Number(ban.group_id),
              reason: ban.reason ?? '',
              time: Number(ban.time),
            })),
          };
        }
        after = Number(page.rows.at(-1)?.id ?? after);
      }
    }
    const report = await importContextStream(target, contexts(), header('pallas-bot postgresql', total), options);
    const lists = await client.query<{ group_id: string; answers: unknown; answers_reserve: unknown }>(
      'SELECT group_id, answers, answers_reserve FROM blacklist ORDER BY group_id',
    );
    const merged =
      options.dryRun === true
        ? lists.rows.length
        : await mergeBlacklists(
            blacklists,
            lists.rows.map((row) => ({
              groupId: Number(row.group_id),
              answers: stringList(row.answers),
              answersReserve: stringList(row.answers_reserve),
            })),
          );
    return { ...report, blacklists_merged: merged };
  } finally {
    await client.end();
  }
}

/**
 * `mongoexport` output of the origin's `context` and `blacklist` collections: JSON Lines (the
 * default) or one JSON array (`--jsonArray`), plain or gzip; numbers may be Extended JSON
 * (`{"$numberLong": "…"}`). Each document is told apart by its shape.
 */
export async function importPallasMongo(
  target: CorpusTarget,
  blacklists: BlacklistTarget,
  paths: readonly string[],
  options: ImportOptions = {},
): Promise<ForeignImportReport> {
  const lists: Blacklist[] = [];
  async function* contexts(): AsyncGenerator<Context> {
    for (const path of paths) {
      let index = 0;
      for await (const document of mongoDocuments(path)) {
        index++;
        const where = `${path}: document ${index}`;
        if (Array.isArray(document.answers) && document.answers.every((item) => typeof item === 'string')) {
          lists.push({
            groupId: integer(document.group_id, `${where}: group_id`),
            answers: stringList(document.answers),
            answersReserve: stringList(document.answers_reserve),
          });
          continue;
        }
        yield mongoContext(document, where);
      }
    }
  }
  const report = await importContextStream(target, contexts(), header('pallas-bot mongoexport', 0), options);
  const merged = options.dryRun === true ? lists.length : await mergeBlacklists(blacklists, lists);
  return { ...report, blacklists_merged: merged };
}

/** The pseudo group whose blacklist applies in every group. */
const GLOBAL_BAN_GROUP = 114514;

/**
 * nonebot-plugin-learning-chat's `learning_chat.db`: `context(id, keywords, time, count)`,
 * `answer(id, keywords, group_id, count, time, messages JSON, context_id)` and
 * `blacklist(keywords, global_ban, ban_group_id JSON)`, whose answer keywords become the
 * blacklists of those groups (of every group for a global ban).
 */
export async function importLearningChat(
  target: CorpusTarget,
  blacklists: BlacklistTarget,
  path: string,
  options: ImportOptions = {},
): Promise<ForeignImportReport> {
  let db: BetterSqlite3.Database;
  try {
    db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
    db.prepare('SELECT id, keywords, time, count FROM context LIMIT 1').all();
  } catch (error) {
    throw new CorpusFileError(`${path}: not a learning-chat database (${errorMessage(error)})`);
  }
  try {
    const total = Number((db.prepare('SELECT count(*) AS n FROM context').get() as { n: number }).n);
    const page = db.prepare('SELECT id, keywords, time, count FROM context WHERE id > ? ORDER BY id LIMIT ?');
    const answersOf = db.prepare(
      'SELECT keywords, group_id, count, time, messages FROM answer WHERE context_id = ? ORDER BY id',
    );
    async function* contexts(): AsyncGenerator<Context> {
      for (let after = 0; ;) {
        const rows = page.all(after, PG_PAGE) as { id: number; keywords: string; time: number; count: number }[];
        if (rows.length === 0) return;
        for (const row of rows) {
          const answers = answersOf.all(row.id) as {
            keywords: string;
            group_id: number;
            count: number;
            time: number;
            messages: string;
          }[];
          yield {
            keywords: row.keywords,
            time: Number(row.time),
            triggerCount: Math.max(1, Number(row.count)),
            clearTime: 0,
            answers: answers
              .filter((answer) => typeof answer.keywords === 'string' && answer.keywords !== '')
              .map((answer) => ({
                keywords: answer.keywords,
                groupId: Number(answer.group_id),
                count: Math.max(1, Number(answer.count)),
                time: Number(answer.time),
                messages: stringList(answer.messages),
              })),
            bans: [],
          };
        }
        after = rows.at(-1)?.id ?? after;
      }
    }
    const report = await importContextStream(
      target,
      contexts(),
      header('nonebot-plugin-learning-chat', total),
      options,
    );
    const byGroup = new Map<number, Set<string>>();
    const banned = db.prepare('SELECT keywords, global_ban, ban_group_id FROM blacklist').all() as {
      keywords: string;
      global_ban: number;
      ban_group_id: string;
    }[];
    for (const row of banned) {
      const groups = row.global_ban ? [GLOBAL_BAN_GROUP] : groupList(row.ban_group_id);
      for (const group of groups) {
        (byGroup.get(group) ?? byGroup.set(group, new Set()).get(group))?.add(row.keywords);
      }
    }
    const lists = [...byGroup].map(([groupId, answers]) => ({ groupId, answers: [...answers], answersReserve: [] }));
    const merged = options.dryRun === true ? lists.length : await mergeBlacklists(blacklists, lists);
    return { ...report, blacklists_merged: merged };
  } finally {
    db.close();
  }
}

type Json = Record<string, unknown>;

async function* mongoDocuments(path: string): AsyncGenerator<Json> {
  const raw = createReadStream(path);
  const input = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let arrayText: string | null = null;
  try {
    for await (const line of lines) {
      const text = line.trim();
      if (arrayText !== null || (text.startsWith('[') && arrayText === null)) {
        arrayText = (arrayText ?? '') + line;
        continue;
      }
      if (text === '') continue;
      yield parseDocument(text, path);
    }
  } finally {
    lines.close();
    input.destroy();
  }
  if (arrayText !== null) {
    const value: unknown = JSON.parse(arrayText);
    if (!Array.isArray(value)) throw new CorpusFileError(`${path}: expected a JSON array`);
    for (const item of value) if (isObject(item)) yield item;
  }
}

function parseDocument(text: string, path: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CorpusFileError(`${path}: a line is not JSON (expected mongoexport output)`);
  }
  if (!isObject(value)) throw new CorpusFileError(`${path}: expected JSON objects`);
  return value;
}

function mongoContext(document: Json, where: string): Context {
  if (typeof document.keywords !== 'string' || document.keywords.trim() === '') {
    throw new CorpusFileError(`${where}: keywords: expected a non-empty string`);
  }
  const answers = Array.isArray(document.answers) ? document.answers : [];
  const bans = Array.isArray(document.ban) ? document.ban : [];
  return {
    keywords: document.keywords,
    time: integer(document.time ?? 0, `${where}: time`),
    triggerCount: integer(document.count ?? 1, `${where}: count`),
    clearTime: integer(document.clear_time ?? 0, `${where}: clear_time`),
    answers: answers.filter(isObject).flatMap((answer, i): Answer[] => {
      if (typeof answer.keywords !== 'string' || answer.keywords === '') return [];
      return [
        {
          keywords: answer.keywords,
          groupId: integer(answer.group_id, `${where}: answers[${i}].group_id`),
          count: Math.max(1, integer(answer.count ?? 1, `${where}: answers[${i}].count`)),
          time: integer(answer.time ?? 0, `${where}: answers[${i}].time`),
          messages: stringList(answer.messages),
        },
      ];
    }),
    bans: bans.filter(isObject).flatMap((ban, i): Ban[] =>
      typeof ban.keywords === 'string' && ban.keywords !== ''
        ? [
            {
              keywords: ban.keywords,
              groupId: integer(ban.group_id, `${where}: ban[${i}].group_id`),
              reason: typeof ban.reason === 'string' ? ban.reason : '',
              time: integer(ban.time ?? 0, `${where}: ban[${i}].time`),
            },
          ]
        : [],
    ),
  };
}

/** A number, or Extended JSON's `{"$numberLong"|"$numberInt"|"$numberDouble": "…"}`. */
function integer(value: unknown, where: string): number {
  let number = value;
  if (isObject(value)) number = value.$numberLong ?? value.$numberInt ?? value.$numberDouble;
  const parsed = typeof number === 'string' ? Number(number) : number;
  if (typeof parsed !== 'number' || !Number.isFinite(parsed)) throw new CorpusFileError(`${where}: expected a number`);
  return Math.trunc(parsed);
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string') {
    try {
      return stringList(JSON.parse(value));
    } catch {
      return [];
    }
  }
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** A JSON list of group numbers (learning-chat's `ban_group_id`); anything else is none. */
function groupList(text: unknown): number[] {
  let value: unknown = text;
  if (typeof text === 'string') {
    try {
      value = JSON.parse(text);
    } catch {
      return [];
    }
  }
  return Array.isArray(value) ? value.map(Number).filter((id) => Number.isSafeInteger(id) && id > 0) : [];
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const list = map.get(key(item));
    if (list) list.push(item);
    else map.set(key(item), [item]);
  }
  return map;
}

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
