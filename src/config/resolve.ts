/**
 * Merges the layers into one value per key. A value that does not parse is ignored with exactly
 * one warning, so the key keeps the value of the next lower source that sets it validly, and in
 * the common case (set in one place only) its default. A credential is the exception: an unusable
 * one stops the load (docs/rules.md#cfg-credentials), since replacing it would lock the operator out.
 */
import type { Catalog, CatalogEntry } from './catalog.ts';
import { ConfigCredentialError } from './errors.ts';
import type { ConfigSource, ConfigWarning, Layer } from './layer.ts';

export interface Resolution {
  readonly values: ReadonlyMap<string, unknown>;
  readonly sources: ReadonlyMap<string, ConfigSource>;
  readonly warnings: readonly ConfigWarning[];
}

/** Layers lowest first. */
export function resolveLayers(catalog: Catalog, layers: readonly Layer[]): Resolution {
  const values = new Map<string, unknown>();
  const sources = new Map<string, ConfigSource>();
  const warnings: ConfigWarning[] = layers.flatMap((layer) => layer.warnings);
  for (const [key, entry] of catalog.entries) {
    const picked = resolveKey(key, entry, layers, warnings);
    values.set(key, picked.value);
    sources.set(key, picked.source);
  }
  return { values, sources, warnings };
}

/** The value of one key; bad inputs are reported into `warnings` when it is given. */
export function resolveKey(
  key: string,
  entry: CatalogEntry,
  layers: readonly Layer[],
  warnings?: ConfigWarning[],
): { value: unknown; source: ConfigSource } {
  let value: unknown = entry.field.default;
  let source: ConfigSource = 'default';
  for (const layer of layers) {
    const raw = layer.entries.get(key);
    if (raw === undefined) continue;
    const parsed = entry.field.parse(raw.input);
    if (parsed.ok) {
      value = parsed.value;
      source = layer.source;
    } else if (entry.field.strict) {
      throw new ConfigCredentialError(raw.where, key, parsed.problem);
    } else {
      warnings?.push({
        key,
        source: layer.source,
        message: `${raw.where}: ${key}: ${parsed.problem}${shownInput(entry, raw.input)}; value ignored`,
      });
    }
  }
  return { value, source };
}

/** `, got "abc"` for ordinary fields; nothing at all for secrets. */
export function shownInput(entry: CatalogEntry, input: unknown): string {
  if (entry.field.secret) return '';
  const text = typeof input === 'bigint' ? String(input) : JSON.stringify(input);
  return `, got ${text && text.length > 80 ? `${text.slice(0, 77)}...` : text}`;
}
