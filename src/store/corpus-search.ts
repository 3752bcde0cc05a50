/**
 * Which contexts a console search finds, in id order, without ever holding the event loop (SQLite
 * runs on it) or the database for long, whatever the text:
 * - a prefix that matches few rows is an index range read (`ix_context_keywords_prefix`,
 *   `ix_context_answer_message_prefix`, both on a 64-character prefix in code point order); a probe
 *   of at most PROBE_ROWS index entries decides;
 * - everything else (a substring, or a prefix so common that sorting its matches would be slow)
 *   scans the corpus in windows of context ids, each window one short statement sized to take
 *   about WINDOW_TARGET_MS, with the event loop free between windows. The scan stops as soon as the
 *   page is full, or after SCAN_BUDGET_MS: then the page holds what was found and says `partial`.
 * Measured by bench:corpus-search.
 */
import { sql, type RawBuilder } from 'kysely';
import { AdaptiveChunk, yieldToEventLoop } from '../common/adaptive-chunk.ts';
import type { EngineKind } from '../sql/engine-kind.ts';
import {
  KEYWORDS_PAGE_PREFIX,
  KEYWORDS_PAGE_PREFIX_CHARS,
  MESSAGE_PREFIX,
  MESSAGE_PREFIX_CHARS,
} from './index-expressions.ts';
import { first, rows } from '../sql/program.ts';
import { readRows } from '../sql/engine.ts';
import { compiled } from '../sql/query.ts';
import { toNumberOr, type DbNumber } from '../sql/numbers.ts';
import type { StoreEngine } from './schema.ts';

export type SearchField = 'all' | 'keywords' | 'answer';
export type SearchMatch = 'prefix' | 'substring';

export interface SearchQuery {
  text: string;
  field: SearchField;
  match: SearchMatch;
  offset: number;
  limit: number;
}

export interface IdPage {
  ids: number[];
  hasMore: boolean;
  /** The scan ran out of time before the end of the corpus: more matches may exist. */
  partial: boolean;
}

/** Index entries a prefix may match and still be read through the index. */
export const PROBE_ROWS = 2_000;
/** Wall time a scanning search may take before it answers with what it found. */
export const SCAN_BUDGET_MS = 1_500;
const WINDOW_TARGET_MS = 8;
const WINDOW = { initial: 1_024, min: 256, max: 1 << 20 };

/** The highest code point: `prefix || MAX` bounds a prefix range in code point order. */
const MAX_CHAR = '\u{10FFFF}';

export async function searchContextIds(
  engine: StoreEngine,
  text: string,
  query: SearchQuery,
  now: () => number = () => performance.now(),
): Promise<IdPage> {
  if (query.match === 'prefix' && (await fewPrefixMatches(engine, text, query.field))) {
    const page = sql<{ id: number }>`LIMIT ${query.limit + 1} OFFSET ${query.offset}`;
    const found = await engine.run(() => rows(compiled(indexQuery(engine.kind, text, query.field, page), engine.db)));
    const ids = found.map((row) => Number(row.id));
    return { ids: ids.slice(0, query.limit), hasMore: ids.length > query.limit, partial: false };
  }
  return scan(engine, text, query, now);
}

/** True when each index range this search would read holds fewer than PROBE_ROWS entries. */
async function fewPrefixMatches(engine: StoreEngine, text: string, field: SearchField): Promise<boolean> {
  const kind = engine.kind;
  const probes: RawBuilder<unknown>[] = [];
  if (field !== 'answer') {
    const range = prefixRange(KEYWORDS_PAGE_PREFIX[kind], 'keywords', text, KEYWORDS_PAGE_PREFIX_CHARS);
    probes.push(sql`SELECT 1 FROM context WHERE ${range} LIMIT ${PROBE_ROWS}`);
  }
  if (field !== 'keywords') {
    const range = prefixRange(MESSAGE_PREFIX[kind], 'm.message', text, MESSAGE_PREFIX_CHARS);
    probes.push(sql`SELECT 1 FROM context_answer_message m WHERE ${range} LIMIT ${PROBE_ROWS}`);
  }
  const counted = probes.map((probe) =>
    compiled(sql<{ n: DbNumber }>`SELECT COUNT(*) AS n FROM (${probe}) probe`, engine.db),
  );
  const counts = await engine.run(function* () {
    const found: number[] = [];
    for (const statement of counted) found.push(toNumberOr((yield* first(statement))?.n, 0));
    return found;
  });
  return counts.every((count) => count < PROBE_ROWS);
}

function indexQuery(kind: EngineKind, text: string, field: SearchField, page: RawBuilder<unknown>) {
  const kw = prefixRange(KEYWORDS_PAGE_PREFIX[kind], 'keywords', text, KEYWORDS_PAGE_PREFIX_CHARS);
  const msg = prefixRange(MESSAGE_PREFIX[kind], 'm.message', text, MESSAGE_PREFIX_CHARS);
  const kwIds = sql`SELECT id FROM context WHERE ${kw}`;
  const msgIds = sql`SELECT a.context_id AS id FROM context_answer_message m
    JOIN context_answer a ON a.id = m.answer_id WHERE ${msg}`;
  const union =
    field === 'all'
      ? sql`${kwIds} UNION ${msgIds}`
      : field === 'keywords'
        ? kwIds
        : sql`SELECT DISTINCT id FROM (${msgIds}) x`;
  return sql<{ id: number }>`SELECT id FROM (${union}) found ORDER BY id ${page}`;
}

/** Context ids in (lo, hi] whose keywords or answer messages match. */
function windowQuery(kind: EngineKind, text: string, query: SearchQuery, lo: number, hi: number) {
  const matches = (column: string) => {
    if (query.match === 'prefix') return sql`substr(${sql.ref(column)}, 1, ${[...text].length}) = ${text}`;
    return kind === 'sqlite'
      ? sql`instr(${sql.ref(column)}, ${text}) > 0`
      : sql`strpos(${sql.ref(column)}, ${text}) > 0`;
  };
  const kwIds = sql`SELECT id FROM context WHERE id > ${lo} AND id <= ${hi} AND ${matches('keywords')}`;
  const msgIds = sql`SELECT a.context_id AS id FROM context_answer a
    JOIN context_answer_message m ON m.answer_id = a.id
    WHERE a.context_id > ${lo} AND a.context_id <= ${hi} AND ${matches('m.message')}`;
  const union =
    query.field === 'all'
      ? sql`${kwIds} UNION ${msgIds}`
      : query.field === 'keywords'
        ? kwIds
        : sql`SELECT DISTINCT id FROM (${msgIds}) x`;
  return sql<{ id: number }>`SELECT id FROM (${union}) found ORDER BY id`;
}

async function scan(engine: StoreEngine, text: string, query: SearchQuery, now: () => number): Promise<IdPage> {
  const started = now();
  const wanted = query.offset + query.limit + 1;
  const last = await engine.run(() =>
    first(compiled(sql<{ id: DbNumber | null }>`SELECT MAX(id) AS id FROM context`, engine.db)),
  );
  const maxId = toNumberOr(last?.id, 0);
  const window = new AdaptiveChunk(WINDOW.initial, WINDOW.min, WINDOW.max, WINDOW_TARGET_MS);
  const found: number[] = [];
  let lo = 0;
  let partial = false;
  while (lo < maxId && found.length < wanted) {
    if (now() - started > SCAN_BUDGET_MS) {
      partial = true;
      break;
    }
    const hi = Math.min(maxId, lo + window.size);
    const statement = compiled(windowQuery(engine.kind, text, query, lo, hi), engine.db);
    const stepStarted = now();
    const ids = await readRows(engine, statement);
    window.record(now() - stepStarted);
    for (const row of ids) found.push(Number(row.id));
    lo = hi;
    await yieldToEventLoop();
  }
  const page = found.slice(query.offset, query.offset + query.limit);
  return { ids: page, hasMore: found.length > query.offset + query.limit || partial, partial };
}

/** `expr` in [prefix, prefix || MAX), plus an exact check when the text is longer than the index. */
function prefixRange(expression: string, column: string, text: string, chars: number) {
  const head = [...text].slice(0, chars).join('');
  const range = sql`${sql.raw(expression)} >= ${head} AND ${sql.raw(expression)} < ${head + MAX_CHAR}`;
  if (head.length === text.length) return range;
  return sql`${range} AND substr(${sql.ref(column)}, 1, ${[...text].length}) = ${text}`;
}
