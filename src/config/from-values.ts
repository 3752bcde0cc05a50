/**
 * A snapshot from defaults plus explicit values, without touching any file: for tests of other
 * modules and for tools. Bad or unknown keys throw instead of warning, so a test cannot run
 * against a configuration it did not ask for.
 */
import { buildCatalog } from './catalog.ts';
import type { LayerEntry } from './layer.ts';
import { resolveLayers } from './resolve.ts';
import { buildSnapshot, type ConfigSnapshot } from './snapshot.ts';
import { validateValues } from './validate.ts';

/** Overrides are keyed by env key and reported with source `env`. */
export function configFromValues(
  overrides: Readonly<Record<string, unknown>> = {},
  options: { projectDir?: string } = {},
): ConfigSnapshot {
  const catalog = buildCatalog();
  const entries = new Map<string, LayerEntry>();
  for (const [key, value] of validateValues(catalog, overrides, { forConsole: false })) {
    entries.set(key, { input: value, where: 'configFromValues' });
  }
  const resolution = resolveLayers(catalog, [{ source: 'env', entries, warnings: [] }]);
  return buildSnapshot(catalog, resolution, options.projectDir ?? process.cwd());
}
