#!/usr/bin/env node
/**
 * The command line: `chorus serve | hub | migrate | config | corpus export | corpus import`. Usage errors (unknown flags, bad values)
 * exit 2 with one line; `serve` and `hub` stop cleanly on SIGINT/SIGTERM with exit code 0.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ExportCommand, ImportCommand } from './app/corpus-commands.ts';
import { createLogger, describeDatabase, type Logger } from './app/logger.ts';
import type { RunningService } from './app/service.ts';
import { RESTART_MESSAGE, supervise, SUPERVISED_ENV, type RestartRequest } from './app/supervisor.ts';
import { releaseRootOf } from './app/release-root.ts';
import { readVersion } from './app/version.ts';
import type { ConfigStore } from './config/index.ts';
import { ConfigFileError } from './config/errors.ts';
import type { RunningHub } from './hub/index.ts';
import { errorMessage } from './common/errors.ts';

// The service, the hub, the store and the configuration are imported by the command that needs
// them: the supervisor process (which only watches the service's process) and `--version` then
// load a fraction of the code (docs/ARCHITECTURE.md#processes).

const USAGE_ERROR = 2;
/** A restart waits this long so that the answer asking for it reaches the client. */
const RESTART_GRACE_MS = 300;
const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'];

interface CommonOptions {
  projectDir?: string;
}

function projectDirOption(): Option {
  return new Option(
    '--project-dir <dir>',
    'folder holding chorus.toml and .env (default: the current folder)',
  ).argParser((value: string) => {
    if (value.trim() === '') throw new InvalidArgumentError('must not be empty');
    return value;
  });
}

function buildProgram(): Command {
  const program = new Command('chorus')
    .description('Chorus: a group-chat corpus bot for QQ groups over OneBot v11')
    .version(readVersion(), '-v, --version')
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`chorus: ${text.replace(/^error: /, '').trim()}\n`) })
    .showSuggestionAfterError(true);

  program
    .command('serve')
    .description('run the bot service: console, OneBot endpoint, corpus (embedded SQLite by default)')
    .addOption(projectDirOption())
    .addOption(new Option('--log-level <level>', 'override CHORUS_LOG_LEVEL').choices(LOG_LEVELS))
    .option('--no-supervise', 'run the service in this process (no restart after an update)')
    .option('--web-root <dir>', 'the built web console to serve (default: web/dist of this installation)')
    .action(async (options: CommonOptions & { logLevel?: string; supervise: boolean; webRoot?: string }) =>
      options.supervise && process.env[SUPERVISED_ENV] !== '1' ? superviseServe() : serve(options),
    );

  program
    .command('hub')
    .description('run the community hub: enrollment, community corpus, hot words (CHORUS_HUB_* keys)')
    .addOption(projectDirOption())
    .addOption(new Option('--log-level <level>', 'override CHORUS_LOG_LEVEL').choices(LOG_LEVELS))
    .action(async (options: CommonOptions & { logLevel?: string }) => hub(options));

  program
    .command('migrate')
    .description('apply database migrations and exit')
    .addOption(projectDirOption())
    .action(async (options: CommonOptions) => migrate(options));

  program
    .command('config')
    .description('print the resolved configuration: every key, its value (secrets masked) and its source')
    .addOption(projectDirOption())
    .action(async (options: CommonOptions) => {
      const config = await openConfig(options);
      const { describeConfig } = await import('./app/describe-config.ts');
      process.stdout.write(`${describeConfig(config.current())}\n`);
    });

  const corpus = program.command('corpus').description('move a corpus: portable export and import files');
  corpus
    .command('export')
    .description('write every context with its answers and bans to a portable file (gzip JSON Lines)')
    .addOption(projectDirOption())
    .option('--out <file>', 'where to write (default chorus-corpus-<date>.jsonl.gz)')
    .option('--group <id...>', 'only answers learned in these groups', (value: string, previous: number[] = []) => [
      ...previous,
      groupId(value),
    ])
    .option('--anonymise', 'write every group id as 0')
    .action(async (options: CommonOptions & ExportCommand) => {
      const snapshot = (await openConfig(options)).current();
      const { exportCommand } = await import('./app/corpus-commands.ts');
      process.stdout.write(`${await exportCommand(snapshot, options)}\n`);
    });
  corpus
    .command('import')
    .description('merge a corpus: larger counts win, messages are united, twice changes nothing')
    .argument('<source...>', "a file written by chorus corpus export; with --from, the other bot's data")
    .addOption(
      new Option(
        '--from <kind>',
        'pallas-pg: a Pallas-Bot PostgreSQL URL; pallas-mongo: its mongoexport files; learning-chat: ' +
          "nonebot-plugin-learning-chat's database; qq-export: a QQ group chat text export",
      )
        .choices(['chorus', 'pallas-pg', 'pallas-mongo', 'learning-chat', 'qq-export'])
        .default('chorus'),
    )
    .addOption(projectDirOption())
    .option('--dry-run', 'read and report what would change, write nothing')
    .option('--group <id>', 'qq-export: the group its messages are learned in', groupId)
    .action(async (sources: string[], options: CommonOptions & ImportCommand) => {
      const snapshot = (await openConfig(options)).current();
      const { importCommand } = await import('./app/corpus-commands.ts');
      process.stdout.write(`${await importCommand(snapshot, sources, options)}\n`);
    });

  return program;
}

function groupId(value: string): number {
  const id = Number(value);
  if (!/^\d{1,16}$/.test(value) || !Number.isSafeInteger(id) || id <= 0) {
    throw new InvalidArgumentError('expected a group number');
  }
  return id;
}

async function openConfig(options: CommonOptions): Promise<ConfigStore> {
  const { ConfigStore } = await import('./config/index.ts');
  return ConfigStore.open({ env: process.env, ...(options.projectDir ? { projectDir: options.projectDir } : {}) });
}

/**
 * The supervisor (src/app/supervisor.ts): the service runs in a child with the same arguments;
 * in a release folder the child starts from its `current` link, so a restart runs what an update
 * installed.
 */
async function superviseServe(): Promise<void> {
  const logger = createLogger({ level: 'info' });
  const running = fileURLToPath(new URL('../', import.meta.url));
  const releaseRoot = releaseRootOf(running);
  const script = process.argv[1] ?? '';
  const code = await supervise({
    env: process.env,
    program: () => ({
      command: process.execPath,
      args: [
        ...process.execArgv,
        releaseRoot ? join(releaseRoot, 'current', 'bin', 'chorus.js') : script,
        ...process.argv.slice(2),
      ],
    }),
    log: (level, message) => logger[level](`supervisor: ${message}`),
  });
  process.exit(code);
}

async function serve(options: CommonOptions & { logLevel?: string; webRoot?: string }): Promise<void> {
  // Handlers go in before the service starts: a signal during start-up must still stop cleanly.
  const state: {
    service?: RunningService;
    pendingSignal?: NodeJS.Signals;
    stopping: boolean;
    restarting: boolean;
  } = { stopping: false, restarting: false };
  const onSignal = (signal: NodeJS.Signals) => {
    const { service } = state;
    if (!service || state.restarting) {
      state.pendingSignal = signal;
      return;
    }
    if (state.stopping) {
      service.logger.warn(`second ${signal}: exiting at once`);
      process.exit(1);
    }
    state.stopping = true;
    service.logger.info(`${signal} received: stopping`);
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        service.logger.error({ err: error }, 'stop failed');
        process.exit(1);
      },
    );
  };
  const supervised = process.env[SUPERVISED_ENV] === '1' && typeof process.send === 'function';
  const { startService } = await import('./app/service.ts');
  const start = (): Promise<RunningService> =>
    startService({
      env: process.env,
      ...(options.projectDir ? { projectDir: options.projectDir } : {}),
      ...(options.logLevel ? { logLevel: options.logLevel } : {}),
      ...(options.webRoot ? { webRoot: options.webRoot } : {}),
      restart: () => void restart(),
      ...(supervised
        ? {
            requestRestart: (container: boolean) => {
              const request: RestartRequest = { type: RESTART_MESSAGE, container };
              return process.send?.(request) ?? false;
            },
          }
        : {}),
    });
  // A restore (src/ops/backup) stops everything, lets the new start swap the database, and starts
  // again in this process. The answer that asked for it is sent first.
  const restart = async (): Promise<void> => {
    const running = state.service;
    if (!running || state.stopping || state.restarting) return;
    state.restarting = true;
    await new Promise((resolve) => setTimeout(resolve, RESTART_GRACE_MS));
    running.logger.warn('restarting');
    try {
      await running.stop();
      state.service = await start();
    } catch (error) {
      running.logger.error({ err: error }, 'restart failed');
      process.exit(1);
    }
    state.restarting = false;
    if (state.pendingSignal) onSignal(state.pendingSignal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The supervisor is gone (killed): stop rather than run on unwatched.
  if (supervised) process.on('disconnect', () => onSignal('SIGTERM'));
  state.service = await start();
  if (state.pendingSignal) onSignal(state.pendingSignal);
}

async function hub(options: CommonOptions & { logLevel?: string }): Promise<void> {
  // Handlers go in before the hub starts: a signal during start-up must still stop cleanly.
  const state: { hub?: RunningHub; logger?: Logger; pendingSignal?: NodeJS.Signals; stopping: boolean } = {
    stopping: false,
  };
  const onSignal = (signal: NodeJS.Signals) => {
    const { hub: running, logger } = state;
    if (!running || !logger) {
      state.pendingSignal = signal;
      return;
    }
    if (state.stopping) {
      logger.warn(`second ${signal}: exiting at once`);
      process.exit(1);
    }
    state.stopping = true;
    logger.info(`${signal} received: stopping`);
    running.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const snapshot = (await openConfig(options)).current();
  const logger = createLogger({ level: options.logLevel ?? snapshot.server.logLevel });
  for (const warning of snapshot.warnings) logger.warn({ key: warning.key, source: warning.source }, warning.message);
  const settings = snapshot.hub;
  const dataDir = resolve(snapshot.projectDir, settings.dataDir);
  const { startHub } = await import('./hub/index.ts');
  const running = await startHub({ ...settings, dataDir, log: logger });
  const storage = describeDatabase(
    settings.databaseUrl === ''
      ? { engine: 'sqlite', file: join(dataDir, 'hub.db') }
      : { engine: 'postgres', url: settings.databaseUrl },
  );
  // Whether moderation is on, and where; never the admin token itself.
  const moderation = settings.adminToken === '' ? 'off (CHORUS_HUB_ADMIN_TOKEN not set)' : `${running.url}/admin/`;
  logger.info({ address: running.url, storage, moderation }, `community hub listening at ${running.url}`);
  state.hub = running;
  state.logger = logger;
  if (state.pendingSignal) onSignal(state.pendingSignal);
}

async function migrate(options: CommonOptions): Promise<void> {
  const snapshot = (await openConfig(options)).current();
  const { openStore } = await import('./store/open-store.ts');
  const store = await openStore({
    databaseUrl: snapshot.database.engine === 'postgres' ? snapshot.database.url : '',
    dataDir: snapshot.dataDir,
    poolMax: 2,
    reply: snapshot.performance,
  });
  await store.close();
  process.stdout.write(`migrations applied (${store.engine.kind})\n`);
}

async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are "errors" to commander; they end normally.
      process.exit(error.exitCode === 0 ? 0 : USAGE_ERROR);
    }
    if (error instanceof ConfigFileError) {
      process.stderr.write(`chorus: ${error.message}\n`);
      process.exit(USAGE_ERROR);
    }
    process.stderr.write(`chorus: ${errorMessage(error)}\n`);
    process.exit(1);
  }
}

await main(process.argv);
