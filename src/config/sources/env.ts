/**
 * The process environment as a layer. The caller passes the object (src/config never reads
 * process.env), and only declared keys are taken: the environment holds plenty that is not ours.
 */
import type { Catalog } from '../catalog.ts';
import type { Layer, LayerEntry } from '../layer.ts';

export type EnvVars = Readonly<Record<string, string | undefined>>;

export function envLayer(catalog: Catalog, env: EnvVars): Layer {
  const entries = new Map<string, LayerEntry>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const key = name.toUpperCase();
    if (!catalog.entries.has(key)) continue;
    // An exact upper-case spelling beats another casing of the same key, whatever the order.
    if (entries.has(key) && name !== key) continue;
    entries.set(key, { input: value, where: 'process environment' });
  }
  return { source: 'env', entries, warnings: [] };
}
