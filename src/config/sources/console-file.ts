/**
 * The console settings file `<dataDir>/console-settings.json`: one JSON object of env keys to
 * canonical values, written only by `ConfigStore.saveConsoleSettings`. It is our own file, so a
 * file that is not a JSON object stops startup rather than silently dropping saved settings.
 */
import type { Catalog } from '../catalog.ts';
import { ConfigFileError } from '../errors.ts';
import type { ConfigWarning, Layer, LayerEntry } from '../layer.ts';
import { readOptionalText } from './read-text.ts';

export const CONSOLE_SETTINGS_FILE = 'console-settings.json';

/** The stored object, `{}` when the file does not exist yet. */
export async function readConsoleSettings(path: string): Promise<Record<string, unknown>> {
  const text = await readOptionalText(path);
  if (text === undefined) return {};
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    // V8's message quotes the text, which holds tokens; say only what is wrong.
    throw new ConfigFileError(path, undefined, undefined, 'is not valid JSON');
  }
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    throw new ConfigFileError(path, undefined, undefined, 'expected a JSON object of settings');
  }
  return document as Record<string, unknown>;
}

export function consoleLayer(catalog: Catalog, path: string, stored: Record<string, unknown>): Layer {
  const entries = new Map<string, LayerEntry>();
  const warnings: ConfigWarning[] = [];
  for (const [name, input] of Object.entries(stored)) {
    const key = name.toUpperCase();
    const entry = catalog.entries.get(key);
    if (entry === undefined || !entry.field.consoleSettable) {
      // Written by another version of Chorus, or edited by hand; the next save drops it.
      const why = entry === undefined ? 'unknown key' : 'key cannot be set from the console';
      warnings.push({ key, source: 'console', message: `${path}: ${why} ${key} ignored` });
      continue;
    }
    entries.set(key, { input, where: path });
  }
  return { source: 'console', entries, warnings };
}
