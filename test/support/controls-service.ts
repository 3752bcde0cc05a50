/**
 * A running `chorus serve` (startService) on SQLite or on a fresh PostgreSQL schema, with its
 * console's write token and a recorder of the repeater's decisions; shared by the group/user
 * control end-to-end tests. Everything is removed after the test.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import pg from 'pg';
import { startService, type RunningService } from '../../src/app/service.ts';
import type { RepeaterDecision } from '../../src/repeater/index.ts';
import { describeText, jiebaTagger, KeywordExtractor } from '../../src/repeater/keywords.ts';
import { freePort } from './chorus-process.ts';
import { freshSchemaName, PG_URL } from './engines.ts';

export const WRITE = 'controls-write-token';
const KEYWORDS = new KeywordExtractor({ tagger: jiebaTagger() });
export const keywordsOf = (text: string): string => describeText(text, text, KEYWORDS).keywords;
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Replies at once, no cool-down, no splitting, and an exact answer threshold of 3. */
export const FAST_REPLIES: Record<string, string> = {
  CHORUS_REPEATER_COOLDOWN_SEC: '0',
  CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
  CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
  CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
  CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
};

export interface ControlsService {
  service: RunningService;
  stop(): Promise<void>;
  port: number;
  decisions: RepeaterDecision[];
  /** The decision on a message, waiting for it (5 s at most). */
  decided(messageId: number): Promise<RepeaterDecision>;
  /** A console call with the write token; returns status and `data`. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies checked field by field
  api(method: string, path: string, body?: unknown): Promise<{ status: number; data: any; detail?: string }>;
  /** Learns `answer` after `phrase` in `groupId`, `count` times, straight into the store. */
  teach(phrase: string, answer: string, groupId: number, count?: number): Promise<void>;
}

/**
 * A PostgreSQL URL on a fresh schema, and its removal: call `drop` after every service on it
 * stopped (after-hooks run in the order they were added).
 */
export async function pgSchema(): Promise<{ url: string; drop: () => Promise<void> }> {
  const schema = freshSchemaName();
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  const url = new URL(PG_URL);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

export async function startControlsService(
  t: TestContext,
  env: Record<string, string>,
  databaseUrl = '',
  /** Told nothing: the caller stops the service (several on one schema stop before it is dropped). */
  manualStop = false,
): Promise<ControlsService> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-controls-'));
  const port = await freePort();
  const decisions: RepeaterDecision[] = [];
  const service = await startService({
    projectDir: dir,
    env: {
      CHORUS_PORT: String(port),
      CHORUS_DATA_DIR: dir,
      CHORUS_CONSOLE_TOKEN: `controls-read-${port}`,
      CHORUS_CONSOLE_WRITE_TOKEN: WRITE,
      ...(databaseUrl ? { CHORUS_DATABASE_URL: databaseUrl } : {}),
      ...env,
    },
    logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
    onDecision: (decision) => decisions.push(decision),
  });
  const stop = async () => {
    await service.stop();
    await rm(dir, { recursive: true, force: true });
  };
  if (!manualStop) t.after(stop);
  return {
    service,
    stop,
    port,
    decisions,
    async decided(messageId) {
      const deadline = Date.now() + 5_000;
      for (;;) {
        const found = decisions.find((d) => d.messageId === messageId);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no decision on ${messageId}`);
        await sleep(5);
      }
    },
    async api(method, path, body) {
      const response = await fetch(`http://127.0.0.1:${port}/chorus/api${path}`, {
        method,
        headers: { 'x-chorus-token': WRITE, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await response.json()) as { data?: unknown; detail?: string };
      return { status: response.status, data: json.data, ...(json.detail ? { detail: json.detail } : {}) };
    },
    async teach(phrase, answer, groupId, count = 3) {
      for (let i = 0; i < count; i++) {
        await service.store.corpus.learnAnswer({
          keywords: keywordsOf(phrase),
          groupId,
          answerKeywords: keywordsOf(answer),
          answerTime: 1_700_000_000 + i,
          message: answer,
          appendOnExisting: true,
        });
      }
    },
  };
}

/** Saves through the console and checks it was accepted. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies checked field by field
export async function save(s: ControlsService, path: string, body: unknown): Promise<any> {
  const reply = await s.api('PUT', path, body);
  assert.equal(reply.status, 200, `${path} ${JSON.stringify(body)}: ${reply.detail ?? ''}`);
  return reply.data;
}
