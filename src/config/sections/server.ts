/**
 * Process-level settings: where to listen, where data lives, which database, how to log, and
 * whether this process is the primary (runs singleton jobs) or a shard worker.
 */
import { isIP } from 'node:net';
import { field, parsedBad, parsedOk, type Parsed } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

/**
 * The console is mounted under this path; routes append `/api`, `/login`, so it has a leading
 * slash and no trailing one, and the root is "" (docs/rules.md#names).
 */
export function normaliseBaseUrl(text: string): Parsed<string> {
  const trimmed = text.trim();
  if (/[\s?#]|:\/\//.test(trimmed)) return parsedBad('expected a URL path such as /chorus (no host, query or spaces)');
  const path = `/${trimmed}`.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  return parsedOk(path);
}

/**
 * "" selects the embedded SQLite file; PostgreSQL is chosen by scheme. Anything else is refused
 * rather than guessed, because a typo would silently start an empty SQLite database. The problem
 * text never repeats the URL: it may hold a password.
 */
export function checkDatabaseUrl(text: string): Parsed<string> {
  const url = text.trim();
  if (url === '') return parsedOk('');
  if (!/^postgres(ql)?:\/\//i.test(url) || !URL.canParse(url)) {
    return parsedBad('expected empty (SQLite in the data folder) or a postgres:// or postgresql:// URL');
  }
  return parsedOk(url);
}

const HOST_LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

/**
 * An address to listen on: an IPv4 or IPv6 literal, or a host name. Checked here because a value
 * the HTTP server cannot bind would stop the next start.
 */
export function checkListenHost(text: string): Parsed<string> {
  const host = text.trim();
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare) !== 0) return parsedOk(bare);
  if (host.length <= 253 && host.split('.').every((label) => HOST_LABEL.test(label))) return parsedOk(host);
  return parsedBad('expected an IP address (127.0.0.1, 0.0.0.0, ::) or a host name');
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * The proxies whose X-Forwarded-For and X-Forwarded-Proto are believed: empty (none, the
 * default), or a comma-separated list of addresses, CIDR ranges and the names loopback,
 * linklocal, uniquelocal. Behind a TLS-terminating proxy this makes the session cookie Secure and
 * the per-address login limit count the real client.
 */
export function checkTrustProxy(text: string): Parsed<string> {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', bits, extra] = entry.split('/');
    const family = isIP(address);
    const bitsOk =
      bits === undefined ||
      (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32) && extra === undefined);
    if (!PROXY_NAMES.has(entry.toLowerCase()) && !(family !== 0 && bitsOk)) {
      return parsedBad('expected addresses, CIDR ranges or loopback/linklocal/uniquelocal, separated by commas');
    }
  }
  return parsedOk(entries.join(','));
}

function checkDataDir(text: string): Parsed<string> {
  const dir = text.trim();
  return dir === '' ? parsedBad('expected a folder path') : parsedOk(dir);
}

export const serverSection = defineSection({
  id: 'server',
  title: 'Server',
  prefix: 'CHORUS_',
  fields: [
    field.string({
      env: 'CHORUS_HOST',
      default: '127.0.0.1',
      check: checkListenHost,
      group: 'HTTP',
      description: 'Address the console and OneBot endpoint listen on.',
    }),
    field.int({
      env: 'CHORUS_PORT',
      default: 8088,
      min: 1,
      max: 65535,
      group: 'HTTP',
      description: 'TCP port the console and OneBot endpoint listen on.',
    }),
    field.string({
      env: 'CHORUS_TRUST_PROXY',
      default: '',
      check: checkTrustProxy,
      group: 'HTTP',
      description:
        'Reverse proxies trusted for X-Forwarded-For/-Proto (addresses, CIDRs, or loopback); empty trusts none.',
    }),
    field.string({
      env: 'CHORUS_BASE_URL',
      default: '/chorus',
      check: normaliseBaseUrl,
      group: 'HTTP',
      description: 'Path prefix of the web console and its API ("/" mounts it at the root).',
    }),
    field.string({
      env: 'CHORUS_DATA_DIR',
      default: 'data',
      check: checkDataDir,
      // The console settings file lives inside this folder, so the console cannot move it.
      consoleSettable: false,
      group: 'Storage',
      description: 'Folder for the SQLite database and state files, relative to the project folder.',
    }),
    field.string({
      env: 'CHORUS_DATABASE_URL',
      default: '',
      check: checkDatabaseUrl,
      secret: true,
      group: 'Storage',
      description: 'Empty for SQLite in the data folder, or a postgres:// URL to share one PostgreSQL.',
    }),
    field.int({
      env: 'CHORUS_DATABASE_POOL_MAX',
      default: 20,
      min: 1,
      max: 500,
      group: 'Storage',
      description: 'PostgreSQL connection pool size of this process.',
    }),
    field.enum({
      env: 'CHORUS_LOG_LEVEL',
      choices: ['trace', 'debug', 'info', 'warn', 'error', 'fatal'],
      default: 'info',
      group: 'Logging',
      description: 'Lowest log level written.',
    }),
    field.enum({
      env: 'CHORUS_LOG_FORMAT',
      choices: ['auto', 'json', 'pretty'],
      default: 'auto',
      group: 'Logging',
      description: 'Log lines as JSON (json), readable coloured lines (pretty), or pretty on a terminal only (auto).',
    }),
    field.enum({
      env: 'CHORUS_LOG_CHAT',
      choices: ['console', 'all', 'off'],
      default: 'console',
      // CHORUS_LOG_CHAT=true is the console's live log, false none (the spelling).
      aliases: { true: 'console', on: 'console', yes: 'console', '1': 'console', false: 'off', no: 'off', '0': 'off' },
      group: 'Logging',
      description:
        "Chat (group messages received, replies sent) logged at info: console = the console's live log only, " +
        'all = standard output too (QQ numbers hidden there), off = not logged.',
    }),
    field.enum({
      env: 'CHORUS_SHARD_ROLE',
      choices: ['primary', 'worker'],
      default: 'primary',
      group: 'Scaling',
      description:
        'A worker shares the database but runs no singleton jobs (backfill, enrollment, heartbeat, cleanup).',
    }),
    field.tristate({
      env: 'CHORUS_FLEET_CLAIMS',
      default: 'auto',
      group: 'Scaling',
      description:
        'Processes sharing one database claim each group message there, so a message several accounts receive ' +
        'is learned once and answered at most once by the fleet (docs/rules.md#fleet-claims). ' +
        'auto: on with PostgreSQL once another process has accounts connected (alone, a claim would be a ' +
        'round trip for nothing), off with SQLite; true: always.',
    }),
  ],
});

export type ServerConfig = SectionValues<typeof serverSection>;
