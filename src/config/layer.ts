/**
 * What each source contributes before merging: raw inputs per upper-case key, with a location
 * for messages. Sources are listed lowest first (docs/rules.md#cfg-order).
 */
export const CONFIG_SOURCES = ['default', 'env', 'toml', 'dotenv', 'console'] as const;
export type ConfigSource = (typeof CONFIG_SOURCES)[number];

export interface ConfigWarning {
  /** The env key concerned (upper-case). */
  readonly key: string;
  readonly source: ConfigSource;
  /** Names the key and where it came from; never contains a secret value. */
  readonly message: string;
}

export interface LayerEntry {
  /** A string (env, .env) or a typed value (TOML, JSON), not yet parsed. */
  readonly input: unknown;
  /** `path:line`, a path, or "process environment". */
  readonly where: string;
}

export interface Layer {
  readonly source: Exclude<ConfigSource, 'default'>;
  readonly entries: ReadonlyMap<string, LayerEntry>;
  /** Problems found while reading (unknown keys), before any value is parsed. */
  readonly warnings: readonly ConfigWarning[];
}

export function emptyLayer(source: Layer['source']): Layer {
  return { source, entries: new Map(), warnings: [] };
}
