/**
 * The project file `chorus.toml`: top-level env-style keys only (`CHORUS_PORT = 8080`), values
 * being strings, numbers, booleans or arrays of strings. A syntax error or a value of another
 * shape stops startup with file and line; a value of the right shape that a field refuses is a
 * warning like any other source's.
 */
import { parse, TomlError } from 'smol-toml';
import type { Catalog } from '../catalog.ts';
import { ConfigFileError } from '../errors.ts';
import { emptyLayer, type ConfigWarning, type Layer, type LayerEntry } from '../layer.ts';
import { readOptionalText } from './read-text.ts';

export async function readTomlLayer(catalog: Catalog, path: string): Promise<Layer> {
  const text = await readOptionalText(path);
  return text === undefined ? emptyLayer('toml') : tomlLayer(catalog, path, text);
}

export function tomlLayer(catalog: Catalog, path: string, text: string): Layer {
  let document: Record<string, unknown>;
  try {
    document = parse(text);
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    // Only the first line of smol-toml's message: the rest quotes the file, which may hold a secret.
    const problem = (error.message.split('\n')[0] ?? 'invalid TOML').replace(/^Invalid TOML document: /, '');
    throw new ConfigFileError(path, error.line, undefined, problem);
  }
  const lines = topLevelKeyLines(text);
  const entries = new Map<string, LayerEntry>();
  const warnings: ConfigWarning[] = [];
  for (const [name, value] of Object.entries(document)) {
    const key = name.toUpperCase();
    const line = lines.get(key);
    const where = line === undefined ? path : `${path}:${line}`;
    if (!catalog.entries.has(key)) {
      warnings.push({
        key,
        source: 'toml',
        message: `${where}: unknown key ${key} ignored (it may belong to a later version)`,
      });
      continue;
    }
    if (!isPlainValue(value)) {
      throw new ConfigFileError(path, line, key, 'expected a string, number, boolean or array of strings');
    }
    entries.set(key, { input: value, where });
  }
  return { source: 'toml', entries, warnings };
}

function isPlainValue(value: unknown): boolean {
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'bigint' || type === 'boolean') return true;
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * smol-toml does not report positions of values, so the line of each top-level key is found by
 * scanning the text up to the first table header. Only used for messages.
 */
function topLevelKeyLines(text: string): Map<string, number> {
  const lines = new Map<string, number>();
  const rows = text.split(/\r?\n/);
  for (let index = 0; index < rows.length; index++) {
    const row = (rows[index] ?? '').trim();
    if (row.startsWith('[')) break;
    const match = /^(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*=/.exec(row);
    const name = match?.[1] ?? match?.[2] ?? match?.[3];
    if (name !== undefined && !lines.has(name.toUpperCase())) lines.set(name.toUpperCase(), index + 1);
  }
  return lines;
}
