/**
 * Configuration pages of the console: which keys a plugin page or a common-config section shows,
 * under which payload names, and how a payload value maps to the stored setting. Rows are rendered
 * from the config schema (docs/rules.md#style-schema), so a new key appears with its kind, default, bounds and
 * description without console code. Secret values never leave the process: a secret row shows ''
 * and `is_set`.
 */
import {
  backfillSection,
  cleanupSection,
  communityStatsSection,
  consoleSection,
  corpusSection,
  guardSection,
  llmSection,
  milkySection,
  onebotSection,
  performanceSection,
  remoteSection,
  repeaterSection,
  serverSection,
  type ConfigKey,
  type ConfigSnapshot,
  type ConfigSource,
  type Field,
  type FieldKind,
  type Section,
} from '../config/index.ts';
import { badRequest, invalidField } from './errors.ts';

export type RowValue = string | number | boolean | string[] | null;

export interface FieldRow {
  key: string;
  env_key: string;
  kind: FieldKind;
  default: RowValue;
  current: RowValue;
  source: ConfigSource;
  description: string;
  group: string;
  secret: boolean;
  is_set?: boolean;
  choices?: string[];
  min?: number;
  max?: number;
  read_only: boolean;
  restart_required: boolean;
}

export interface PagePayload {
  id: string;
  title: string;
  plugin: string | null;
  hot_reload: boolean;
  fields: FieldRow[];
}

interface PageField {
  /** Payload name: lower-case env key without the page's prefix. */
  readonly name: string;
  readonly field: Field;
  readonly readOnly: boolean;
  readonly restartRequired: boolean;
  /** Overrides for fields the console shows differently from their stored form. */
  readonly view?: FieldView;
}

interface FieldView {
  kind: FieldKind;
  choices: string[];
  show(value: unknown): RowValue;
  /** The value to store, or throws a 400 naming the field. */
  accept(input: unknown, name: string): unknown;
}

export interface ConfigPage {
  readonly id: string;
  readonly title: string;
  readonly fields: readonly PageField[];
}

interface FieldOptions {
  strip: string;
  readOnly?: readonly string[];
  restartRequired?: boolean;
  exclude?: readonly string[];
  views?: Readonly<Record<string, FieldView>>;
}

function pageFields(section: Section, options: FieldOptions): PageField[] {
  return section.fields
    .filter((field) => !(options.exclude ?? []).includes(field.env))
    .map((field) => {
      if (!field.env.startsWith(options.strip)) throw new Error(`${field.env} does not start with ${options.strip}`);
      const view = options.views?.[field.env];
      return {
        name: field.env.slice(options.strip.length).toLowerCase(),
        field,
        readOnly: (options.readOnly ?? []).includes(field.env) || !field.consoleSettable,
        restartRequired: options.restartRequired ?? false,
        ...(view ? { view } : {}),
      };
    });
}

/**
 * merge_order: the console offers `local,community` and `local` (the page fixes these). No
 * federated source is ever built, so `fed` is left out of what is shown; the default order
 * local,fed,community therefore shows as local,community.
 */
const MERGE_ORDER_CHOICES = ['local,community', 'local'];
const mergeOrderView: FieldView = {
  kind: 'enum',
  choices: MERGE_ORDER_CHOICES,
  show: (value) => (Array.isArray(value) ? value.filter((name) => name !== 'fed').join(',') : String(value)),
  accept(input, name) {
    const text = Array.isArray(input) ? input.join(',') : input;
    if (typeof text !== 'string' || !MERGE_ORDER_CHOICES.includes(text.replace(/\s+/g, '').toLowerCase())) {
      throw invalidField(
        `body.values.${name}`,
        'enum',
        `values.${name}: expected one of ${MERGE_ORDER_CHOICES.join(' | ')}`,
        {
          limit: MERGE_ORDER_CHOICES.join(' | '),
        },
      );
    }
    return text.replace(/\s+/g, '').toLowerCase();
  },
};

/** The corpus_federation section (docs/rules.md#cfg-events), on the core page. */
export const CORPUS_FEDERATION_PAGE: ConfigPage = {
  id: 'corpus_federation',
  title: 'Community shared reply library',
  fields: [
    ...pageFields(corpusSection, {
      strip: 'CHORUS_CORPUS_',
      // Not offered by the console: the federated source and the failure fallback.
      exclude: ['CHORUS_CORPUS_FED_ENABLED', 'CHORUS_CORPUS_ON_REMOTE_FAILURE'],
      views: { CHORUS_CORPUS_MERGE_ORDER: mergeOrderView },
    }),
    ...pageFields(backfillSection, { strip: 'CHORUS_CORPUS_' }),
    ...pageFields(performanceSection, { strip: 'CHORUS_CORPUS_' }),
  ],
};

export const REPEATER_PAGE: ConfigPage = {
  id: 'repeater',
  title: 'Repeater',
  fields: [
    ...pageFields(repeaterSection, { strip: 'CHORUS_REPEATER_' }),
    ...pageFields(guardSection, { strip: 'LLM_CORPUS_LEARN_' }),
    ...pageFields(cleanupSection, { strip: 'LLM_CORPUS_' }),
  ],
};

export const ONEBOT_PAGE: ConfigPage = {
  id: 'onebot',
  title: 'OneBot v11',
  fields: [
    // The forward targets are added and removed one by one on the bots page (routes/forward-targets.ts).
    ...pageFields(onebotSection, { strip: 'CHORUS_ONEBOT_', exclude: ['CHORUS_ONEBOT_CONNECT'] }),
    // The Milky implementations Chorus dials, on the same page as OneBot's connection settings.
    ...pageFields(milkySection, { strip: 'CHORUS_' }),
  ],
};

/** What routes/forward-targets.ts saves through: the forward-WebSocket addresses alone. */
export const ONEBOT_CONNECT_PAGE: ConfigPage = {
  id: 'onebot',
  title: 'OneBot v11 forward WebSocket',
  fields: pageFields(onebotSection, { strip: 'CHORUS_ONEBOT_' }).filter(
    (entry) => entry.field.env === 'CHORUS_ONEBOT_CONNECT',
  ),
};

export const COMMUNITY_STATS_PAGE: ConfigPage = {
  id: 'community_stats',
  title: 'Community statistics',
  fields: pageFields(communityStatsSection, { strip: 'CHORUS_COMMUNITY_STATS_' }),
};

export const CONSOLE_PAGE: ConfigPage = {
  id: 'console',
  title: 'Console access',
  fields: pageFields(consoleSection, { strip: 'CHORUS_CONSOLE_' }),
};

const SERVER_KEYS = ['CHORUS_HOST', 'CHORUS_PORT', 'CHORUS_BASE_URL', 'CHORUS_TRUST_PROXY', 'CHORUS_SHARD_ROLE'];
const STORAGE_KEYS = ['CHORUS_DATA_DIR', 'CHORUS_DATABASE_URL', 'CHORUS_DATABASE_POOL_MAX', 'CHORUS_FLEET_CLAIMS'];
const LOGGING_KEYS = ['CHORUS_LOG_LEVEL', 'CHORUS_LOG_FORMAT', 'CHORUS_LOG_CHAT'];
const serverKeysExcept = (keep: readonly string[]) =>
  serverSection.fields.map((field) => field.env).filter((env) => !keep.includes(env));

/** Common-config sections: settings not tied to one plugin. */
export const COMMON_PAGES: readonly ConfigPage[] = [
  {
    id: 'server',
    title: 'Server address',
    fields: pageFields(serverSection, {
      strip: 'CHORUS_',
      exclude: serverKeysExcept(SERVER_KEYS),
      restartRequired: true,
    }),
  },
  {
    id: 'logging',
    title: 'Logging',
    fields: pageFields(serverSection, { strip: 'CHORUS_', exclude: serverKeysExcept(LOGGING_KEYS) }),
  },
  {
    id: 'storage',
    title: 'Data folder and database',
    fields: pageFields(serverSection, {
      strip: 'CHORUS_',
      exclude: serverKeysExcept(STORAGE_KEYS),
      readOnly: ['CHORUS_DATA_DIR'],
      restartRequired: true,
    }),
  },
  {
    id: 'remote_budget',
    title: 'Community request budget',
    fields: pageFields(remoteSection, { strip: 'CHORUS_CORPUS_' }),
  },
  {
    id: 'language_model',
    title: 'Language model',
    fields: pageFields(llmSection, { strip: 'CHORUS_LLM_' }),
  },
];

/** Section ids that exist elsewhere; asking common-config for them is a 400 that says where. */
export const MOVED_SECTIONS: Readonly<Record<string, string>> = {
  corpus_federation: 'corpus_federation is edited on the core plugin page: GET/PUT /api/plugins/core/config',
};

export function renderPage(page: ConfigPage, snapshot: ConfigSnapshot, plugin: string | null): PagePayload {
  return {
    id: page.id,
    title: page.title,
    plugin,
    hot_reload: page.fields.some((entry) => !entry.restartRequired && !entry.readOnly),
    fields: page.fields.map((entry) => renderRow(entry, snapshot)),
  };
}

function renderRow(entry: PageField, snapshot: ConfigSnapshot): FieldRow {
  const { field, view } = entry;
  const key = field.env as ConfigKey;
  const current = snapshot.raw(key);
  // A tri-state shows as the words of its choices ('auto' | 'true' | 'false').
  const show = view?.show ?? (field.kind === 'tristate' ? (value: unknown) => String(value) : showValue);
  const choices = view?.choices ?? (field.kind === 'tristate' ? ['auto', 'true', 'false'] : field.choices);
  return {
    key: entry.name,
    env_key: field.env,
    kind: view?.kind ?? field.kind,
    default: field.secret ? '' : show(field.default),
    current: field.secret ? '' : show(current),
    source: snapshot.sourceOf(key),
    description: field.description,
    group: field.group,
    secret: field.secret,
    ...(field.secret ? { is_set: current !== '' } : {}),
    ...(choices ? { choices: [...choices] } : {}),
    ...(field.min !== undefined ? { min: field.min } : {}),
    ...(field.max !== undefined ? { max: field.max } : {}),
    read_only: entry.readOnly,
    restart_required: entry.restartRequired,
  };
}

function showValue(value: unknown): RowValue {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  return value === null || value === undefined ? null : String(value);
}

/**
 * Turns a `{values}` patch into env keys and canonical values, refusing the whole patch at the
 * first unknown, read-only or invalid field (400 naming it; nothing is saved). `null` removes the
 * console's setting so a lower source applies again; '' for a secret keeps the stored secret (the
 * form shows secrets as '' and sends them back unchanged).
 */
export function patchToSettings(page: ConfigPage, values: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const names = Object.keys(values);
  if (names.length === 0) throw badRequest('nothing_to_save', {}, 'values: nothing to save (empty object)');
  const settings: Record<string, unknown> = {};
  for (const name of names) {
    const entry = page.fields.find((candidate) => candidate.name === name);
    if (entry === undefined)
      throw invalidField(`body.values.${name}`, 'extra', `values.${name}: unknown field of ${page.id}`);
    if (entry.readOnly) {
      throw badRequest(
        'setting_read_only',
        { field: `body.values.${name}`, setting: entry.field.env },
        `values.${name}: read-only here (set ${entry.field.env} in the environment, chorus.toml or .env)`,
      );
    }
    const input = values[name];
    if (input === null) {
      settings[entry.field.env] = null;
      continue;
    }
    if (entry.field.secret && input === '') continue;
    // Text fields take JSON strings only: a number sent for a URL or token is a client mistake.
    if (entry.field.kind === 'string' && typeof input !== 'string')
      throw invalidField(`body.values.${name}`, 'type', `values.${name}: expected a string`, {
        setting: entry.field.env,
      });
    const accepted = entry.view ? entry.view.accept(input, name) : input;
    const parsed = entry.field.parse(accepted);
    if (!parsed.ok)
      throw badRequest(
        'invalid_setting',
        { field: `body.values.${name}`, setting: entry.field.env, reason: 'invalid' },
        `values.${name}: ${parsed.problem}`,
      );
    settings[entry.field.env] = parsed.value;
  }
  return settings;
}

/** The payload name of an env key on a page (for errors raised by the config store). */
export function nameOnPage(page: ConfigPage, env: string): string {
  return page.fields.find((entry) => entry.field.env === env.toUpperCase())?.name ?? env;
}
