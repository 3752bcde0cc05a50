/**
 * Settings keys that changed name or went away, as a table the code owns: the origin's keys
 * (Pallas-Bot's `PALLAS_*` settings and the NoneBot keys of its `.env`) and, as Chorus renames or
 * drops keys, its own. A `PALLAS_<rest>` key not listed here becomes `CHORUS_<rest>` when Chorus
 * has a setting of that name; otherwise it has no counterpart and is removed.
 */
export interface KeyFate {
  /** The key it becomes, or null when it goes away. */
  to: string | null;
  reason: string;
}

const renamed = (to: string, reason: string): KeyFate => ({ to, reason });
const removed = (reason: string): KeyFate => ({ to: null, reason });

const DATABASE = 'set CHORUS_DATABASE_URL instead (postgres://user:password@host:port/db, or empty for SQLite)';

export const KEY_TABLE: Readonly<Record<string, KeyFate>> = {
  // The origin's NoneBot settings.
  HOST: renamed('CHORUS_HOST', 'the listen address'),
  PORT: renamed('CHORUS_PORT', 'the listen port'),
  ACCESS_TOKEN: renamed('CHORUS_ONEBOT_ACCESS_TOKEN', 'the OneBot access token'),
  LOG_LEVEL: renamed('CHORUS_LOG_LEVEL', 'the log level'),
  NICKNAME: renamed('CHORUS_REPEATER_NICKNAMES', "the bot's nicknames"),
  SUPERUSERS: removed("bot admins are set per account on the console's bot page"),
  COMMAND_START: removed('Chorus has no command prefix'),
  DRIVER: removed('a NoneBot setting; Chorus has no drivers'),
  ENVIRONMENT: removed('a NoneBot setting; Chorus reads .env and chorus.toml only'),
  DB_BACKEND: removed(DATABASE),
  MONGO_HOST: removed(DATABASE),
  MONGO_PORT: removed(DATABASE),
  MONGO_USER: removed(DATABASE),
  MONGO_PASSWORD: removed(DATABASE),
  MONGO_DB: removed(DATABASE),
  MONGO_AUTH_SOURCE: removed(DATABASE),
  PG_HOST: removed(DATABASE),
  PG_PORT: removed(DATABASE),
  PG_USER: removed(DATABASE),
  PG_PASSWORD: removed(DATABASE),
  PG_DB: removed(DATABASE),
  // The origin's own settings whose Chorus name is not CHORUS_<rest>.
  PALLAS_CORPUS_TOKEN: renamed('CHORUS_CORPUS_COMMUNITY_TOKEN', 'the community corpus token'),
  PALLAS_WEBUI_ENABLED: removed('the web console is built in'),
  PALLAS_WEBUI_ROOT: removed('the web console is built in'),
  PALLAS_WEBUI_DIST_ZIP_URL: removed('web-console releases come from CHORUS_UPDATE_FEED_URL'),
  PALLAS_WEBUI_API_TOKEN: removed('the console tokens are CHORUS_CONSOLE_TOKEN and CHORUS_CONSOLE_WRITE_TOKEN'),
  PALLAS_PROTOCOL_GITHUB_TOKEN: removed('releases come from CHORUS_UPDATE_FEED_URL'),
  PALLAS_AI_ROOT: removed('the managed AI checkout is data/runtimes/ai'),
  PALLAS_GPU: removed('chosen when the AI runtime is installed from the console'),
  PALLAS_VERSION: removed('the version is the installed package'),
  PALLAS_BOT_VERSION: removed('the version is the installed package'),
};

/** What happens to `key`, or null when it is left alone. */
export function fateOf(key: string, known: (key: string) => boolean): KeyFate | null {
  const listed = KEY_TABLE[key];
  if (listed) return listed;
  if (!key.startsWith('PALLAS_')) return null;
  const chorus = `CHORUS_${key.slice('PALLAS_'.length)}`;
  return known(chorus)
    ? renamed(chorus, 'the same setting under its Chorus name')
    : removed('an origin setting Chorus does not have');
}
