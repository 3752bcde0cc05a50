/**
 * Test helpers for the community hub: a real hub on 127.0.0.1 (port 0) on the location of a fresh
 * bot store from test/support/engines.ts (SQLite temp dir, where the hub's hub.db sits beside the
 * bot's chorus.db, or a fresh PostgreSQL schema, where the hub's `hub_` tables sit beside the
 * bot's; removed after the test), a small HTTP client, and a dump of every hub table for
 * de-identification checks.
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { HUB_SQLITE_FILE } from '../../src/hub/open-hub-store.ts';
import { startHub, type RunningHub, type StartHubOptions } from '../../src/hub/index.ts';
import type { EngineFixture, StoreLocation, TestStore } from '../support/engines.ts';

export const HUB_TABLES = [
  'hub_deployment',
  'hub_usage',
  'hub_context',
  'hub_answer',
  'hub_answer_vote',
  'hub_hot_snapshot',
  'hub_heartbeat',
  'hub_report',
  'hub_withdrawal',
  'hub_audit',
] as const;

export interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are checked field by field
  body: any;
  headers: Headers;
}

export class HubClient {
  /**
   * `localAddress`: the loopback address the client's sockets bind to (127.0.0.2, 127.0.0.3 …),
   * so the hub sees requests from distinct client addresses.
   */
  constructor(
    readonly url: string,
    readonly localAddress?: string,
  ) {}

  async request(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const response =
      this.localAddress === undefined
        ? await fetch(`${this.url}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) })
        : await requestFrom(this.localAddress, `${this.url}${path}`, method, headers, body);
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  }

  get(path: string, token?: string): Promise<Reply> {
    return this.request('GET', path, token !== undefined ? { token } : {});
  }

  post(path: string, body: unknown, token?: string): Promise<Reply> {
    return this.request('POST', path, { body, ...(token !== undefined ? { token } : {}) });
  }

  /** Enrolls `deploymentId` (a fresh UUID by default) and returns the 200 body. */
  async enroll(deploymentId: string = randomUUID()): Promise<{ corpus_token: string; deployment_id: string }> {
    const reply = await this.post('/v1/corpus/enroll', { deployment_id: deploymentId });
    if (reply.status !== 200) throw new Error(`enroll answered ${reply.status}: ${JSON.stringify(reply.body)}`);
    return reply.body as { corpus_token: string; deployment_id: string };
  }

  context(keywords: string, token: string): Promise<Reply> {
    return this.get(`/v1/corpus/context?keywords=${encodeURIComponent(keywords)}`, token);
  }

  contribute(body: unknown, token: string): Promise<Reply> {
    return this.post('/v1/corpus/contribute', body, token);
  }
}

/**
 * A `fetch` whose sockets bind `localAddress` (a bot's community client given it sends every
 * request from that address): string bodies, headers as a record, and the abort signal.
 */
export function fetchFrom(localAddress: string): typeof fetch {
  return (input, init = {}) => {
    const url = input instanceof Request ? input.url : String(input);
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const body = typeof init.body === 'string' ? init.body : undefined;
    return requestFrom(localAddress, url, init.method ?? 'GET', headers, body, init.signal ?? undefined);
  };
}

/** One HTTP request over node:http from `localAddress`, answered as a fetch Response. */
function requestFrom(
  localAddress: string,
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal?: AbortSignal,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers, localAddress, agent: false, signal }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const replyHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (typeof value === 'string') replyHeaders.set(name, value);
        }
        resolve(new Response(Buffer.concat(chunks), { status: response.statusCode ?? 0, headers: replyHeaders }));
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}

export interface TestHub {
  readonly hub: RunningHub;
  readonly client: HubClient;
  /** The bot store on the same database (used to inspect the hub's tables). */
  readonly store: TestStore;
  readonly location: StoreLocation;
  /** Another hub process on the same database, closed after the test. */
  another(options?: StartHubOptions): Promise<{ hub: RunningHub; client: HubClient }>;
  /** Every row of every hub table as JSON text. */
  dump(): Promise<string>;
  rows(table: (typeof HUB_TABLES)[number]): Promise<Record<string, unknown>[]>;
}

/**
 * The origin's serving rule: whatever one deployment contributed is served with the merged count.
 * The protocol compatibility tests run with it (`openHub`'s default); agreement tests set their own.
 */
export const ORIGIN_SERVING: StartHubOptions = { minDeployments: 1, countPerDeploymentMax: 0 };

export async function openHub(t: TestContext, engine: EngineFixture, given: StartHubOptions = {}): Promise<TestHub> {
  const options = { ...ORIGIN_SERVING, ...given };
  const hubs: RunningHub[] = [];
  // Registered before the store's own cleanup, so the hubs close before their database goes away.
  t.after(async () => {
    for (const hub of hubs) await hub.close();
  });
  const store = await engine.open(t);
  const location = store.location;
  const start = async (more: StartHubOptions) => {
    const hub = await startHub({
      host: '127.0.0.1',
      port: 0,
      databaseUrl: location.databaseUrl,
      dataDir: location.dataDir,
      ...(location.schema !== undefined ? { schema: location.schema } : {}),
      databasePoolMax: 4,
      ...more,
    });
    hubs.push(hub);
    return { hub, client: new HubClient(hub.url) };
  };
  const first = await start(options);
  const rows = async (table: (typeof HUB_TABLES)[number]): Promise<Record<string, unknown>[]> => {
    if (engine.kind === 'postgres') {
      const result = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)}`.execute(store.engine.db);
      return result.rows;
    }
    // SQLite: the hub has its own file beside the bot's chorus.db.
    const db = new BetterSqlite3(join(location.dataDir, HUB_SQLITE_FILE), { readonly: true });
    try {
      return db.prepare(`SELECT * FROM ${table}`).all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
  };
  return {
    ...first,
    store,
    location,
    another: (more = options) => start(more),
    rows,
    async dump() {
      const all: Record<string, unknown> = {};
      for (const table of HUB_TABLES) all[table] = await rows(table);
      return JSON.stringify(all);
    },
  };
}

export function nowSec(): number {
  return Math.floor(Date.now() / 1000);
}
