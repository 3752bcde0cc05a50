/**
 * The in-process starter of a hub: opens its database (SQLite `<dataDir>/hub.db`, or PostgreSQL),
 * applies the hub's migrations, listens, and runs housekeeping until closed. `chorus hub` uses it;
 * so do tests and the bot-side end-to-end tests (port 0 picks a free port).
 */
import { fileURLToPath } from 'node:url';
import { systemClock, type Clock } from '../common/clock.ts';
import { silentLog, type Log } from '../common/log.ts';
import { HubService } from './hub-service.ts';
import type { HubStore } from './hub-store.ts';
import { HOUSEKEEPING_INTERVAL_MS } from './limits.ts';
import { openHubStore } from './open-hub-store.ts';
import { createHubServer } from './server.ts';
import { HubModeration } from './moderation.ts';
import { HubModerationStore } from './moderation-store.ts';
import { hubDefaults, type HubSettings } from './settings.ts';
import { errorMessage } from '../common/errors.ts';

/** Every `hub` config value may be given; what is missing takes the section's default. */
export interface StartHubOptions extends Partial<HubSettings> {
  host?: string;
  /** 0 picks a free port. Default 8099. */
  port?: number;
  /** '' (default) = SQLite in `dataDir`; postgres:// = PostgreSQL. */
  databaseUrl?: string;
  /** Folder of hub.db (SQLite only). Default `hub-data`, relative to the working directory. */
  dataDir?: string;
  databasePoolMax?: number;
  /** PostgreSQL schema (created when missing): lets tests or several hubs share a database. */
  schema?: string;
  /** The built web console with the moderation page; default web/dist of this checkout, null = none. */
  webRoot?: string | null;
  log?: Log;
  clock?: Clock;
}

const DEFAULT_WEB_ROOT = fileURLToPath(new URL('../../web/dist', import.meta.url));

export interface RunningHub {
  /** `http://<host>:<port>` (IPv6 hosts in brackets). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** `<url>/v1/corpus`: what a bot uses as its community API base. */
  readonly apiBase: string;
  readonly engine: 'sqlite' | 'postgres';
  /** Stops accepting requests, waits for running ones, then closes the database. Idempotent. */
  close(): Promise<void>;
}

export async function startHub(options: StartHubOptions = {}): Promise<RunningHub> {
  const defaults = hubDefaults();
  const { host = defaults.host, port = defaults.port, schema, log = silentLog, clock = systemClock } = options;
  const settings = settingsOf(options, defaults);
  const store: HubStore = await openHubStore({
    databaseUrl: options.databaseUrl ?? defaults.databaseUrl,
    dataDir: options.dataDir ?? defaults.dataDir,
    poolMax: options.databasePoolMax ?? defaults.databasePoolMax,
    ...(schema !== undefined ? { schema } : {}),
    onIdleError: (error) => log.warn({ err: { message: error.message } }, 'idle hub database connection failed'),
  });
  const service = new HubService({ store, settings, clock });
  const moderation = new HubModeration({ store: new HubModerationStore(store.engine), settings, clock });
  const webRoot = options.webRoot === undefined ? DEFAULT_WEB_ROOT : options.webRoot;
  const app = createHubServer({ service, settings, moderation, webRoot, log });
  try {
    await app.listen({ host, port });
  } catch (error) {
    await app.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
  const address = app.server.address();
  const boundPort = typeof address === 'object' && address ? address.port : port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${boundPort}`;

  const housekeeping = setInterval(() => {
    service
      .housekeeping()
      .catch((error: unknown) => log.warn({ err: { message: errorMessage(error) } }, 'hub housekeeping failed'));
  }, HOUSEKEEPING_INTERVAL_MS);
  housekeeping.unref();

  let closing: Promise<void> | undefined;
  return {
    url,
    host,
    port: boundPort,
    apiBase: `${url}/v1/corpus`,
    engine: store.engine.kind,
    close: () =>
      (closing ??= (async () => {
        clearInterval(housekeeping);
        try {
          await app.close();
        } finally {
          await store.close();
        }
      })()),
  };
}

function settingsOf(options: StartHubOptions, defaults: HubSettings): HubSettings {
  const given: Partial<HubSettings> = options;
  const pick = <K extends keyof HubSettings>(key: K): HubSettings[K] => given[key] ?? defaults[key];
  return {
    publicApiBase: pick('publicApiBase').replace(/\/+$/, ''),
    trustProxy: pick('trustProxy'),
    maxBodyBytes: pick('maxBodyBytes'),
    maxKeywordsChars: pick('maxKeywordsChars'),
    maxMessageChars: pick('maxMessageChars'),
    maxAnswersPerInsert: pick('maxAnswersPerInsert'),
    tokenTtlSec: pick('tokenTtlSec'),
    defaultRead: pick('defaultRead'),
    defaultContribute: pick('defaultContribute'),
    readPerMinute: pick('readPerMinute'),
    contributionsPerDay: pick('contributionsPerDay'),
    enrollPerIpPerMinute: pick('enrollPerIpPerMinute'),
    heartbeatToken: pick('heartbeatToken'),
    heartbeatPerIpPerMinute: pick('heartbeatPerIpPerMinute'),
    heartbeatMinIntervalSec: pick('heartbeatMinIntervalSec'),
    maxClockSkewSec: pick('maxClockSkewSec'),
    enrollPerIpPerHour: pick('enrollPerIpPerHour'),
    enrollPerMinute: pick('enrollPerMinute'),
    contributionsPerMinute: pick('contributionsPerMinute'),
    reportsPerHour: pick('reportsPerHour'),
    minDeployments: pick('minDeployments'),
    countPerDeploymentMax: pick('countPerDeploymentMax'),
    cohortWindowSec: pick('cohortWindowSec'),
    adminToken: pick('adminToken'),
    reportThreshold: pick('reportThreshold'),
  };
}
