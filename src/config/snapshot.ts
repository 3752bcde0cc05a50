/**
 * Immutable snapshots of the resolved configuration. Consumers keep a snapshot for the duration
 * of one piece of work and never see it change under them; a change is a new snapshot plus a
 * `config/changed` event (docs/rules.md#cfg-events).
 */
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Catalog } from './catalog.ts';
import type { ConfigSource, ConfigWarning } from './layer.ts';
import type { Resolution } from './resolve.ts';
import type { ConfigKey, ConfigSections, ConfigValue } from './sections/index.ts';

export const SQLITE_FILE_NAME = 'chorus.db';

/** Which engine the store opens (docs/rules.md#store-engines). */
export type DatabaseTarget =
  | { readonly engine: 'sqlite'; readonly file: string }
  | { readonly engine: 'postgres'; readonly url: string; readonly poolMax: number };

export interface ConfigSnapshot extends ConfigSections {
  /** Absolute folder the config files were looked up in. */
  readonly projectDir: string;
  /** Absolute data folder (CHORUS_DATA_DIR resolved against the project folder). */
  readonly dataDir: string;
  readonly database: DatabaseTarget;
  /** The PostgreSQL URL, or a `file:` URL of the SQLite file. Secret: do not log it. */
  readonly databaseUrl: string;
  /** Problems found while loading, for the caller to log; never contain secret values. */
  readonly warnings: readonly ConfigWarning[];
  sourceOf(key: ConfigKey): ConfigSource;
  raw<K extends ConfigKey>(key: K): ConfigValue<K>;
}

/**
 * Builds the frozen snapshot. CHORUS_DATA_DIR is stored absolute so no consumer can resolve it
 * against the wrong working directory.
 */
export function buildSnapshot(catalog: Catalog, resolution: Resolution, projectDir: string): ConfigSnapshot {
  const root = resolve(projectDir);
  const values = new Map(resolution.values);
  const dataDir = resolve(root, String(values.get('CHORUS_DATA_DIR')));
  values.set('CHORUS_DATA_DIR', dataDir);

  const sections: Record<string, Record<string, unknown>> = {};
  for (const [key, entry] of catalog.entries) {
    const target = (sections[entry.section.id] ??= {});
    target[entry.name] = values.get(key);
  }
  for (const section of Object.values(sections)) Object.freeze(section);

  const sources = new Map(resolution.sources);
  const databaseUrlSetting = String(values.get('CHORUS_DATABASE_URL'));
  const database: DatabaseTarget =
    databaseUrlSetting === ''
      ? { engine: 'sqlite', file: join(dataDir, SQLITE_FILE_NAME) }
      : { engine: 'postgres', url: databaseUrlSetting, poolMax: Number(values.get('CHORUS_DATABASE_POOL_MAX')) };

  const snapshot = {
    ...sections,
    projectDir: root,
    dataDir,
    database: Object.freeze(database),
    databaseUrl: database.engine === 'sqlite' ? pathToFileURL(database.file).href : database.url,
    warnings: Object.freeze(resolution.warnings.map((warning) => Object.freeze({ ...warning }))),
    sourceOf(key: ConfigKey): ConfigSource {
      const source = sources.get(key.toUpperCase());
      if (source === undefined) throw new Error(`unknown config key ${key}`);
      return source;
    },
    raw<K extends ConfigKey>(key: K): ConfigValue<K> {
      const upper = key.toUpperCase();
      if (!values.has(upper)) throw new Error(`unknown config key ${key}`);
      return values.get(upper) as ConfigValue<K>;
    },
  };
  return Object.freeze(snapshot) as unknown as ConfigSnapshot;
}

/** Keys whose resolved values differ, in declaration order. */
export function changedKeys(catalog: Catalog, previous: ConfigSnapshot, current: ConfigSnapshot): ConfigKey[] {
  const changed: ConfigKey[] = [];
  for (const key of catalog.entries.keys()) {
    const name = key as ConfigKey;
    if (!sameValue(previous.raw(name), current.raw(name))) changed.push(name);
  }
  return changed;
}

/** True when nothing a consumer can observe differs, sources and warnings included. */
export function sameSnapshot(catalog: Catalog, a: ConfigSnapshot, b: ConfigSnapshot): boolean {
  if (changedKeys(catalog, a, b).length > 0) return false;
  for (const key of catalog.entries.keys()) {
    if (a.sourceOf(key as ConfigKey) !== b.sourceOf(key as ConfigKey)) return false;
  }
  return JSON.stringify(a.warnings) === JSON.stringify(b.warnings);
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => Object.is(item, b[i]));
  return Object.is(a, b);
}
