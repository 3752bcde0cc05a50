/**
 * A console over the real pieces, listening on a loopback port: a ConfigStore on a temporary
 * project folder, the SQLite store, the corpus runtime (optionally with remote sources, so the
 * composite's caches are in play) and the production console wiring from src/app. Shared by the
 * console unit and integration tests; everything is removed after the test.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { TestContext } from 'node:test';
import type { AiWiringOverrides } from '../../../src/app/ai-wiring.ts';
import type { UpdateWiringOverrides } from '../../../src/app/update-wiring.ts';
import { loadConsoleAuth, type StoredConsoleAuth } from '../../../src/app/console-auth-file.ts';
import { wireConsole } from '../../../src/app/console-wiring.ts';
import { ChorusMetrics } from '../../../src/app/metrics.ts';
import { replySettings, replySettingsReaction, wireCorpus } from '../../../src/app/corpus-wiring.ts';
import { createLogger } from '../../../src/app/logger.ts';
import { readVersion } from '../../../src/app/version.ts';
import { CONSOLE_SETTINGS_FILE, ConfigReactions, ConfigStore, type ConfigReaction } from '../../../src/config/index.ts';
import { LogRing } from '../../../src/ops/logs/index.ts';
import { ChatActivity, DecisionRing } from '../../../src/repeater/index.ts';
import type { HealthSource } from '../../../src/console/health.ts';
import type { ConsoleApp } from '../../../src/console/server.ts';
import type { RemoteSources } from '../../../src/corpus/composite-repository.ts';
import { CorpusRuntime } from '../../../src/corpus/corpus-runtime.ts';
import { systemClock, type Clock } from '../../../src/common/clock.ts';
import { silentLog } from '../../../src/common/log.ts';
import { openStore, type LocalStore } from '../../../src/store/open-store.ts';

export const READ_TOKEN = 'read-token-for-tests-0123456789';
export const WRITE_TOKEN = 'write-token-for-tests-0123456789';

export interface HarnessOptions {
  /** Configuration as process environment (tokens are added unless `tokens: false`). */
  env?: Record<string, string>;
  tokens?: boolean;
  /** Remote sources of the composite; without them the real corpus wiring is used. */
  sources?: RemoteSources;
  clock?: Clock;
  fetch?: typeof fetch;
  /** Replaces the table of configuration reactions (to record or break steps); given the real one. */
  reactions?: (real: readonly ConfigReaction[]) => readonly ConfigReaction[];
  /** Runs before the console is wired (to add config listeners that must come first). */
  beforeWire?: (config: ConfigStore) => void;
  /** Folders and timings of the AI extension. */
  ai?: AiWiringOverrides;
  /** Release root, versions and timings of the update domain. */
  update?: UpdateWiringOverrides;
  /** The bundled web console's folder (default the checkout's web/dist). */
  webRoot?: string | null;
  /** The environment the AI extension's programs run with (default process.env). */
  processEnv?: Record<string, string | undefined>;
  /** The health report (default a fixed healthy one). */
  health?: HealthSource;
  /** Heartbeat of the service-log stream (default the console's). */
  logHeartbeatMs?: number;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON, or undefined when the body is not JSON. */
  json: unknown;
}

export interface RequestOptions {
  token?: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Raw body text (sent as JSON content type). */
  raw?: string;
  cookie?: string;
  headers?: Record<string, string>;
}

export interface Harness {
  readonly dir: string;
  readonly config: ConfigStore;
  readonly store: LocalStore;
  readonly runtime: CorpusRuntime;
  readonly server: ConsoleApp;
  /** e.g. http://127.0.0.1:40123 */
  readonly origin: string;
  /** e.g. http://127.0.0.1:40123/chorus/api */
  readonly api: string;
  readonly settingsFile: string;
  readonly logRing: LogRing;
  logs(): string;
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
}

export async function startHarness(t: TestContext, options: HarnessOptions = {}): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-console-'));
  const cleanups: (() => Promise<unknown> | void)[] = [() => rm(dir, { recursive: true, force: true })];
  t.after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  let logText = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      logText += chunk.toString('utf8');
      callback();
    },
  });
  // The service log's ring, as `chorus serve` wires it: the log routes read what the logger wrote.
  const logRing = new LogRing();
  const logger = createLogger({ level: 'info', destination, ring: logRing });
  const env = {
    ...(options.tokens === false ? {} : { CHORUS_CONSOLE_TOKEN: READ_TOKEN, CHORUS_CONSOLE_WRITE_TOKEN: WRITE_TOKEN }),
    ...options.env,
  };
  const config = await ConfigStore.open({ env, projectDir: dir });
  const snapshot = config.current();
  const store = await openStore({
    databaseUrl: '',
    dataDir: snapshot.dataDir,
    poolMax: 1,
    reply: replySettings(snapshot),
  });
  cleanups.push(() => store.close());
  const clock = options.clock ?? systemClock;

  let corpus: { runtime: CorpusRuntime; counters: () => Record<string, Record<string, number>> };
  // The reactions as `chorus serve` assembles them, less the chat side and logging (not built here).
  let table: readonly ConfigReaction[];
  if (options.sources) {
    const sources = options.sources;
    const runtime = new CorpusRuntime({
      local: store.corpus,
      pressure: store.engine,
      config: () => config.current(),
      enrollment: () => null,
      sources: () => sources,
      prefetch: { schedule() {} },
      clock,
      log: silentLog,
    });
    // A bare runtime: its shared state's reactions and the store's, no community side.
    table = [...runtime.shared.configReactions(), replySettingsReaction(store)];
    corpus = { runtime, counters: () => ({}) };
  } else {
    const wired = wireCorpus(store, config, clock, silentLog);
    await wired.scope.start();
    cleanups.push(() => wired.scope.stop(1000));
    table = wired.reactions;
    corpus = wired;
  }

  options.beforeWire?.(config);
  const reactions = new ConfigReactions(options.reactions ? options.reactions(table) : table, logger);
  cleanups.push(reactions.follow(config));
  // The real auth file in the temporary data folder (rotated by "log out everywhere").
  const auth: StoredConsoleAuth = await loadConsoleAuth(dir, true, logger, clock.nowMs());
  const wiring = wireConsole({
    config,
    store,
    corpus,
    logger,
    clock,
    version: readVersion(),
    auth,
    reactions,
    health:
      options.health ??
      (() => ({
        status: 'ok',
        version: '0.0.0-test',
        storage: { engine: 'sqlite', pressure: 0 },
        corpus: { composite_active: false, learning_queue: 0, mirror_queue: 0 },
        onebot: {
          connected_bots: 0,
          dropped: { rate_limited: 0, oversized: 0, self_id_mismatch: 0, malformed: 0, ignored: 0 },
        },
        workers: { learn: false, mirror: false },
        uptime_sec: 0,
      })),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.ai ? { ai: options.ai } : {}),
    // Never this checkout: an update test (or the auth matrix) must not fetch or check out in it.
    update: { runningDir: join(dir, 'install'), releaseRoot: null, ...options.update },
    ...(options.processEnv ? { env: options.processEnv } : {}),
    ...(options.webRoot !== undefined ? { webRoot: options.webRoot } : {}),
    // The console's dashboards over empty rings: no repeater runs in the harness.
    watch: { decisions: new DecisionRing(), activity: new ChatActivity() },
    metrics: new ChorusMetrics({ queues: () => ({}), counters: () => corpus.counters(), bundleCache: () => ({}) }),
    logs: {
      ring: logRing,
      ...(options.logHeartbeatMs !== undefined ? { heartbeatMs: options.logHeartbeatMs } : {}),
    },
  });
  const server = wiring.server;
  await server.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => server.close());
  const address = server.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('no address');
  const origin = `http://127.0.0.1:${address.port}`;
  const api = `${origin}${snapshot.server.baseUrl}/api`;

  return {
    dir,
    config,
    store,
    runtime: corpus.runtime,
    server,
    origin,
    api,
    settingsFile: join(snapshot.dataDir, CONSOLE_SETTINGS_FILE),
    logRing,
    logs: () => logText,
    request: (method, path, requestOptions = {}) => send(api, method, path, requestOptions),
  };
}

export async function send(api: string, method: string, path: string, options: RequestOptions = {}): Promise<Reply> {
  const url = new URL(`${api}${path}`);
  for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, value);
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers['x-chorus-token'] = options.token;
  if (options.cookie !== undefined) headers.cookie = options.cookie;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) body = JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= 'application/json';
  const response = await fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await bodyText(response);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/**
 * The body; of an event stream only what came first (a live stream such as the service log never
 * ends by itself): the reading stops after the first event, or after 2 s, and the stream is closed.
 */
async function bodyText(response: Response): Promise<string> {
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) {
    return response.text();
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + 2000;
  while (!/\ndata: [^\n]*\n\n/.test(`\n${text}`) && Date.now() < deadline) {
    const timeout = new Promise<{ done: true; value: undefined }>((resolve) =>
      setTimeout(() => resolve({ done: true, value: undefined }), Math.max(1, deadline - Date.now())).unref(),
    );
    const chunk = await Promise.race([reader.read(), timeout]);
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text;
}

/** The `data` of a success envelope (fails the test when the reply is not one). */
export function dataOf<T = Record<string, unknown>>(reply: Reply): T {
  const body = reply.json as { ok?: unknown; data?: unknown } | undefined;
  if (reply.status !== 200 || body?.ok !== true) {
    throw new Error(`expected a 200 success envelope, got ${reply.status}: ${reply.text.slice(0, 500)}`);
  }
  return body.data as T;
}
