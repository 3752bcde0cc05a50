import { pino, type Logger } from 'pino';
import type { ConfigReaction } from '../config/index.ts';
import type { LogRing } from '../ops/logs/index.ts';
import { boundLogFields } from './log-fields.ts';
import type { LogOutput } from './log-output.ts';

export type { Logger };

/**
 * Fields that may hold a secret anywhere in a log object; pino replaces their values. Call sites
 * still never pass secrets on purpose: this is the net under the rope.
 */
const REDACTED_PATHS = [
  'token',
  'password',
  'secret',
  'authorization',
  'databaseUrl',
  'url',
  '*.token',
  '*.password',
  '*.secret',
  '*.authorization',
  '*.databaseUrl',
  '*.url',
  'req.headers.authorization',
  'req.headers["x-chorus-token"]',
  'req.headers.cookie',
];

export interface LoggerOptions {
  level: string;
  /** Where lines go; default standard output. Tests pass a stream to read them. */
  destination?: NodeJS.WritableStream;
  /** Also keeps every line in this ring (the console's log pages); the lines are the same. */
  ring?: LogRing;
  /** JSON or pretty lines to the destination (CHORUS_LOG_FORMAT); default JSON as written. */
  output?: LogOutput;
}

export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'chorus' },
      formatters: { log: boundLogFields },
    },
    options.ring
      ? // Each stream takes every level: the logger's own level decides what is written at all.
        pino.multistream([
          { level: 'trace', stream: options.output ?? options.destination ?? process.stdout },
          { level: 'trace', stream: options.ring.stream() },
        ])
      : (options.output ?? options.destination ?? process.stdout),
  );
}

/** A PostgreSQL URL without its password, for messages that must say which database. */
export function describeDatabase(
  target: { engine: 'sqlite'; file: string } | { engine: 'postgres'; url: string },
): string {
  if (target.engine === 'sqlite') return `sqlite:${target.file}`;
  try {
    const url = new URL(target.url);
    url.password = '';
    url.username = url.username ? url.username : '';
    return `postgres://${url.username ? `${url.username}@` : ''}${url.host}${url.pathname}`;
  } catch {
    return 'postgres';
  }
}

/**
 * The log level and format follow a saved configuration (docs/rules.md#cfg-events); a level
 * given on the command line stays.
 */
export function loggingReaction(logger: Logger, output: LogOutput, fixedLevel: boolean): ConfigReaction {
  return {
    step: 'apply_logging',
    keys: ['CHORUS_LOG_LEVEL', 'CHORUS_LOG_FORMAT'],
    run: (change) => {
      const done: string[] = [];
      if (!fixedLevel && change.changedKeys.includes('CHORUS_LOG_LEVEL')) {
        logger.level = change.current.server.logLevel;
        done.push(`level ${logger.level}`);
      }
      if (change.changedKeys.includes('CHORUS_LOG_FORMAT')) {
        output.setFormat(change.current.server.logFormat);
        done.push(`format ${change.current.server.logFormat}`);
      }
      return { detail: done.length > 0 ? done.join('; ') : 'level set on the command line: kept' };
    },
  };
}
