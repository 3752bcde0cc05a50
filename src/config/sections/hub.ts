/**
 * The community hub (`chorus hub`): a separate server that deployments enroll with, read
 * de-identified phrases from and contribute to (docs/rules.md#hub-protocol). None of these keys
 * affects `chorus serve`. Policy values are issued to each deployment at enrollment and enforced
 * per deployment; 0 means "no limit" where a description says so.
 */
import { field, parsedBad, parsedOk, type Parsed } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';
import { checkDatabaseUrl } from './server.ts';

/** What enrollment answers as `api_base`: an http(s) URL without a trailing slash, or "" (derive). */
export function checkPublicApiBase(text: string): Parsed<string> {
  const trimmed = text.trim().replace(/\/+$/, '');
  if (trimmed === '') return parsedOk('');
  if (!/^https?:\/\//i.test(trimmed) || !URL.canParse(trimmed)) {
    return parsedBad(
      'expected empty (derived from the request) or an http(s) URL such as https://hub.example/v1/corpus',
    );
  }
  return parsedOk(trimmed);
}

function checkDataDir(text: string): Parsed<string> {
  const dir = text.trim();
  return dir === '' ? parsedBad('expected a folder path') : parsedOk(dir);
}

/** The admin token: empty (moderation off) or long enough not to be guessed. */
function checkAdminToken(text: string): Parsed<string> {
  const token = text.trim();
  if (token === '') return parsedOk('');
  if (token.length < 16 || /\s/.test(token))
    return parsedBad('expected empty or at least 16 characters without spaces');
  return parsedOk(token);
}

const DAY_SEC = 86_400;

export const hubSection = defineSection({
  id: 'hub',
  title: 'Community hub',
  prefix: 'CHORUS_HUB_',
  fields: [
    field.string({
      env: 'CHORUS_HUB_HOST',
      default: '127.0.0.1',
      group: 'HTTP',
      description: 'Address the community hub listens on.',
    }),
    field.int({
      env: 'CHORUS_HUB_PORT',
      default: 8099,
      min: 0,
      max: 65535,
      group: 'HTTP',
      description: 'TCP port the community hub listens on (0 picks a free port).',
    }),
    field.string({
      env: 'CHORUS_HUB_PUBLIC_API_BASE',
      default: '',
      check: checkPublicApiBase,
      group: 'HTTP',
      description: 'The api_base enrollment returns; empty derives http://<request host>/v1/corpus.',
    }),
    field.bool({
      env: 'CHORUS_HUB_TRUST_PROXY',
      default: false,
      group: 'HTTP',
      description: 'Trust X-Forwarded-For/-Proto/-Host (set behind a reverse proxy) for client addresses and api_base.',
    }),
    field.int({
      env: 'CHORUS_HUB_MAX_BODY_BYTES',
      default: 1_048_576,
      min: 1024,
      max: 16_777_216,
      group: 'Limits',
      description: 'Largest request body in bytes; a larger one is refused with 413.',
    }),
    field.int({
      env: 'CHORUS_HUB_MAX_KEYWORDS_CHARS',
      default: 2000,
      min: 16,
      max: 100_000,
      group: 'Limits',
      description: 'Longest context or answer keywords string accepted, in characters.',
    }),
    field.int({
      env: 'CHORUS_HUB_MAX_MESSAGE_CHARS',
      default: 4000,
      min: 16,
      max: 100_000,
      group: 'Limits',
      description: 'Longest message accepted in a contribution, in characters (before cleaning).',
    }),
    field.int({
      env: 'CHORUS_HUB_MAX_ANSWERS_PER_INSERT',
      default: 500,
      min: 1,
      max: 10_000,
      group: 'Limits',
      description: 'Most answers one insert contribution may carry.',
    }),
    field.string({
      env: 'CHORUS_HUB_DATA_DIR',
      default: 'hub-data',
      check: checkDataDir,
      consoleSettable: false,
      group: 'Storage',
      description: 'Folder of the hub SQLite database, relative to the project folder.',
    }),
    field.string({
      env: 'CHORUS_HUB_DATABASE_URL',
      default: '',
      check: checkDatabaseUrl,
      secret: true,
      consoleSettable: false,
      group: 'Storage',
      description: 'Empty for SQLite (hub.db in the hub data folder), or a postgres:// URL shared by several hubs.',
    }),
    field.int({
      env: 'CHORUS_HUB_DATABASE_POOL_MAX',
      default: 20,
      min: 1,
      max: 500,
      group: 'Storage',
      description: 'PostgreSQL connection pool size of one hub process.',
    }),
    field.int({
      env: 'CHORUS_HUB_TOKEN_TTL_SEC',
      default: 0,
      min: 0,
      max: 366 * DAY_SEC,
      group: 'Enrollment',
      description: 'Lifetime of a corpus token in seconds; 0 means tokens never expire.',
    }),
    field.bool({
      env: 'CHORUS_HUB_DEFAULT_READ',
      default: true,
      group: 'Enrollment',
      description: 'Whether newly enrolled deployments may read the community corpus.',
    }),
    field.bool({
      env: 'CHORUS_HUB_DEFAULT_CONTRIBUTE',
      default: true,
      group: 'Enrollment',
      description: 'Whether newly enrolled deployments may contribute to the community corpus.',
    }),
    field.int({
      env: 'CHORUS_HUB_READ_PER_MINUTE',
      default: 120,
      min: 0,
      max: 1_000_000,
      group: 'Enrollment',
      description: 'Context reads one deployment may make per minute (429 beyond); 0 means no limit.',
    }),
    field.int({
      env: 'CHORUS_HUB_CONTRIBUTIONS_PER_DAY',
      default: 100_000,
      min: 0,
      max: 100_000_000,
      group: 'Enrollment',
      description: 'Contributions one deployment may make per UTC day (429 beyond); 0 means no limit.',
    }),
    field.int({
      env: 'CHORUS_HUB_ENROLL_PER_IP_PER_MINUTE',
      default: 60,
      min: 0,
      max: 1_000_000,
      group: 'Enrollment',
      description: 'Enrollments one client address may make per minute (429 beyond); 0 means no limit.',
    }),
    field.int({
      env: 'CHORUS_HUB_ENROLL_PER_IP_PER_HOUR',
      default: 20,
      min: 0,
      max: 1_000_000,
      group: 'Enrollment',
      description: 'Enrollments one client address may make per hour (429 beyond); 0 means no limit.',
    }),
    field.int({
      env: 'CHORUS_HUB_ENROLL_PER_MINUTE',
      default: 300,
      min: 0,
      max: 1_000_000,
      group: 'Enrollment',
      description:
        'Enrollments the hub process accepts per minute from all addresses together (429 beyond); 0 means no limit.',
    }),
    field.int({
      env: 'CHORUS_HUB_CONTRIBUTIONS_PER_MINUTE',
      default: 600,
      min: 0,
      max: 1_000_000,
      group: 'Enrollment',
      description: 'Contributions one deployment may make per minute (429 beyond); 0 means no limit.',
    }),
    field.int({
      env: 'CHORUS_HUB_REPORTS_PER_HOUR',
      default: 60,
      min: 0,
      max: 1_000_000,
      group: 'Enrollment',
      description: 'Answer reports one deployment may send per hour (429 beyond); 0 means no limit.',
    }),
    field.int({
      env: 'CHORUS_HUB_MIN_DEPLOYMENTS',
      default: 3,
      min: 1,
      max: 1000,
      group: 'Agreement',
      description:
        'An answer is served only once this many independent deployments contributed it (deployments enrolled from one address within the cohort window count as one); 1 serves whatever one deployment contributed.',
    }),
    field.int({
      env: 'CHORUS_HUB_COUNT_PER_DEPLOYMENT_MAX',
      default: 3,
      min: 0,
      max: 1_000_000,
      group: 'Agreement',
      description:
        'Most that one deployment (or one address cohort) adds to the count an answer is served with, however often it contributed it; 0 means no cap.',
    }),
    field.int({
      env: 'CHORUS_HUB_COHORT_WINDOW_SEC',
      default: DAY_SEC,
      min: 0,
      max: 366 * DAY_SEC,
      group: 'Agreement',
      description:
        'Deployments enrolled from one client address within this many seconds of each other count as one for agreement; 0 counts every deployment on its own.',
    }),
    field.string({
      env: 'CHORUS_HUB_HEARTBEAT_TOKEN',
      default: '',
      secret: true,
      group: 'Heartbeat',
      description: 'Bearer token heartbeats must carry; empty accepts heartbeats openly, rate limited.',
    }),
    field.int({
      env: 'CHORUS_HUB_HEARTBEAT_PER_IP_PER_MINUTE',
      default: 60,
      min: 0,
      max: 1_000_000,
      group: 'Heartbeat',
      description: 'Open heartbeats one client address may send per minute (429 beyond); 0 means no limit.',
    }),
    field.int({
      env: 'CHORUS_HUB_HEARTBEAT_MIN_INTERVAL_SEC',
      default: 30,
      min: 0,
      max: 86_400,
      group: 'Heartbeat',
      description: 'Shortest interval between open heartbeats of one deployment (429 sooner); 0 means none.',
    }),
    field.int({
      env: 'CHORUS_HUB_MAX_CLOCK_SKEW_SEC',
      default: 300,
      min: 0,
      max: 86_400,
      group: 'Heartbeat',
      description: 'Largest difference between a heartbeat ts and the hub clock (400 beyond); 0 disables the check.',
    }),
    field.string({
      env: 'CHORUS_HUB_ADMIN_TOKEN',
      default: '',
      check: checkAdminToken,
      secret: true,
      consoleSettable: false,
      group: 'Moderation',
      description:
        'Bearer token of the hub moderation page and admin API (/admin); empty turns both off. At least 16 characters.',
    }),
    field.int({
      env: 'CHORUS_HUB_REPORT_THRESHOLD',
      default: 2,
      min: 1,
      max: 1000,
      group: 'Moderation',
      description: 'Distinct deployments whose reports of an answer withdraw it (the hub stops serving it).',
    }),
  ],
});

export type HubConfig = SectionValues<typeof hubSection>;
