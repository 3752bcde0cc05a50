import { mkdir } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { ConfigStore, type ConfigChange, type ConfigSnapshot } from '../config/index.ts';
import { createConsoleServer } from '../console/server.ts';
import { openStore, type LocalStore } from '../store/open-store.ts';
import type { ReplySettings } from '../store/corpus-store.ts';
import { systemClock } from '../shared/clock.ts';
import { wireCorpus, type CorpusWiring } from './corpus-wiring.ts';
import { createLogger, describeDatabase, type Logger } from './logger.ts';
import { readVersion } from './version.ts';

export interface ServiceOptions {
  /** The process environment (the only place it is read is the command line). */
  env: Record<string, string | undefined>;
  projectDir?: string;
  /** Overrides the configured log level (command line flag). */
  logLevel?: string;
  logDestination?: NodeJS.WritableStream;
}

export interface RunningService {
  readonly config: ConfigStore;
  readonly store: LocalStore;
  readonly corpus: CorpusWiring;
  readonly server: FastifyInstance;
  readonly logger: Logger;
  /** Where the console listens, e.g. http://127.0.0.1:8088/chorus/ */
  readonly consoleUrl: string;
  /** Stops everything in reverse order of start; resolves within `deadlineMs` or rejects. */
  stop(deadlineMs?: number): Promise<void>;
}

const DEFAULT_STOP_DEADLINE_MS = 5000;

/**
 * The composition root of `chorus serve`: builds every object from configuration, starts them in
 * order and owns their stop (house style 1). Nothing below src/app reads the environment or
 * knows the file layout; they get what they need here.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const config = await ConfigStore.open({
    env: options.env,
    ...(options.projectDir ? { projectDir: options.projectDir } : {}),
  });
  const snapshot = config.current();
  const logger = createLogger({
    level: options.logLevel ?? snapshot.server.logLevel,
    ...(options.logDestination ? { destination: options.logDestination } : {}),
  });
  for (const warning of snapshot.warnings) logger.warn({ key: warning.key, source: warning.source }, warning.message);

  await mkdir(snapshot.dataDir, { recursive: true });
  const store = await openStore({
    databaseUrl: snapshot.database.engine === 'postgres' ? snapshot.database.url : '',
    dataDir: snapshot.dataDir,
    poolMax: snapshot.server.databasePoolMax,
    reply: replySettings(snapshot),
    onIdleError: (error) => logger.warn({ err: { message: error.message } }, 'idle database connection failed'),
  });
  logger.info({ storage: describeDatabase(snapshot.database) }, 'corpus store ready');
  const corpus = wireCorpus(store, config, systemClock, logger);

  const startedAt = performance.now();
  const version = readVersion();
  const server = createConsoleServer({
    baseUrl: snapshot.server.baseUrl,
    logger,
    health: () => ({
      status: 'ok',
      version,
      storage: { engine: store.engine.kind, pressure: store.engine.pressure() },
      corpus: {
        composite_active: corpus.runtime.activation().compositeActive,
        learning_queue: corpus.runtime.learning.queue.size,
        mirror_queue: corpus.runtime.mirror.queue.size,
      },
      workers: { learn: corpus.learnWorker.running, mirror: corpus.mirrorWorker.running },
      uptime_sec: Math.round((performance.now() - startedAt) / 1000),
    }),
  });

  const onConfigChanged = (change: ConfigChange) => applyConfigChange(change, store, logger);
  config.on('config/changed', onConfigChanged);

  try {
    await server.listen({ host: snapshot.server.host, port: snapshot.server.port });
  } catch (error) {
    config.off('config/changed', onConfigChanged);
    await corpus.stop(0);
    await store.close();
    throw error;
  }
  const address = server.server.address();
  const port = typeof address === 'object' && address ? address.port : snapshot.server.port;
  const consoleUrl = `http://${formatHost(snapshot.server.host)}:${port}${snapshot.server.baseUrl}/`;
  logger.info(`console listening at ${consoleUrl}`);

  let stopping: Promise<void> | undefined;
  const stop = (deadlineMs = DEFAULT_STOP_DEADLINE_MS): Promise<void> => {
    stopping ??= withDeadline(
      (async () => {
        config.off('config/changed', onConfigChanged);
        const started = performance.now();
        await server.close();
        // Queued learning is drained into the database before it closes; leave a second for the rest.
        await corpus.stop(Math.max(0, deadlineMs - 1000 - (performance.now() - started)));
        await store.close();
        logger.info('stopped');
      })(),
      deadlineMs,
    );
    return stopping;
  };

  return { config, store, corpus, server, logger, consoleUrl, stop };
}

function replySettings(snapshot: ConfigSnapshot): ReplySettings {
  const p = snapshot.performance;
  return {
    replyMessagesCap: p.replyMessagesCap,
    replyAnswersCap: p.replyAnswersCap,
    replySnapshotSec: p.replySnapshotSec,
    replySnapshotMax: p.replySnapshotMax,
    replyQueryTimeoutSec: p.replyQueryTimeoutSec,
  };
}

/** Each part reacts to its own keys (house style 4). */
function applyConfigChange(change: ConfigChange, store: LocalStore, logger: Logger): void {
  if (change.changedKeys.some((key) => key.startsWith('CHORUS_CORPUS_REPLY_'))) {
    store.corpus.configure(replySettings(change.current));
    logger.info({ keys: change.changedKeys }, 'reply settings applied; snapshot cache cleared');
  }
}

function formatHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

async function withDeadline(work: Promise<void>, deadlineMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`shutdown did not finish within ${deadlineMs} ms`)), deadlineMs);
    timer.unref();
  });
  try {
    await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
