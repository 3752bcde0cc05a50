/**
 * The console's OpenAPI document built offline: the same server factory as `chorus serve`, with
 * default configuration and inert dependencies (no database, no network), so the exported file is
 * the very object a default deployment serves at GET /chorus/api/openapi.json.
 */
import { pino } from 'pino';
import { configFromValues } from '../config/index.ts';
import { createConsoleServer } from '../console/server.ts';
import { DEFAULT_AI_TIMING } from '../ops/ai/index.ts';
import { DEFAULT_UPDATE_TIMING } from '../ops/update/index.ts';
import { systemClock } from '../common/clock.ts';
import { readVersion } from './version.ts';

const inert = (what: string) => () => {
  throw new Error(`${what} is not available while exporting the OpenAPI document`);
};

export async function buildOpenapiDocument(): Promise<Record<string, unknown>> {
  const snapshot = configFromValues({});
  const app = createConsoleServer({
    baseUrl: snapshot.server.baseUrl,
    version: readVersion(),
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    health: inert('health'),
    credentials: inert('credentials'),
    revokeSessions: inert('sessions'),
    retention: { preview: inert('retention'), apply: inert('retention') },
    corpusFiles: {
      startExport: inert('corpus files'),
      file: inert('corpus files'),
      startImport: inert('corpus files'),
    },
    database: { overview: inert('database'), rows: inert('database') },
    backups: {
      info: inert('backups'),
      runs: inert('backups'),
      active: inert('backups'),
      job: inert('backups'),
      file: inert('backups'),
      start: inert('backups'),
      delete: inert('backups'),
      preview: inert('backups'),
      restore: inert('backups'),
    },
    trustProxy: '',
    settings: { current: () => snapshot, saveConsoleSettings: inert('saving settings') },
    reactions: { handle: inert('config reactions'), unchanged: () => [] },
    corpus: { status: inert('corpus status'), localHot: inert('local hot'), communityApiBase: () => '' },
    botConfigs: { get: inert('bot configs'), list: inert('bot configs'), put: inert('bot configs') },
    chatControls: {
      getGroup: inert('group configs'),
      listGroups: inert('group configs'),
      putGroup: inert('group configs'),
      getUser: inert('user configs'),
      listUsers: inert('user configs'),
      putUser: inert('user configs'),
    },
    requests: { pending: inert('requests'), handled: inert('requests'), act: inert('requests') },
    chatLists: { groups: inert('group list'), friends: inert('friend list') },
    instances: { list: inert('instances'), disconnect: inert('instances'), groupActivity: inert('instances') },
    suspectedBots: inert('suspected bots'),
    aiExtension: {
      timing: DEFAULT_AI_TIMING,
      config: inert('AI extension'),
      saveConfig: inert('AI extension'),
      test: inert('AI extension'),
      installStatus: inert('AI extension'),
      startInstall: inert('AI extension'),
      job: inert('AI extension'),
      activeJob: inert('AI extension'),
      logs: inert('AI extension'),
      logStream: inert('AI extension'),
      ncmStatus: inert('AI extension'),
      ncmSendSms: inert('AI extension'),
      ncmVerifySms: inert('AI extension'),
      ncmLogout: inert('AI extension'),
    },
    updates: {
      timing: DEFAULT_UPDATE_TIMING,
      check: inert('updates'),
      botCheck: inert('updates'),
      startWebApply: inert('updates'),
      startBotApply: inert('updates'),
      history: inert('updates'),
      startGitApply: inert('updates'),
      configMigrationCheck: inert('updates'),
      configMigrationApply: inert('updates'),
      rollback: inert('updates'),
      job: inert('updates'),
      activeJob: inert('updates'),
    },
    pluginEnabled: () => false,
  });
  try {
    await app.ready();
    // A deep copy: the document is plain JSON and must not share objects with route schemas.
    return JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
