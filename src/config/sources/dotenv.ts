/**
 * The env file `.env`: `KEY=VALUE` lines with optional `export `, `#` comments, blank lines and
 * quoted (possibly multi-line) values. Node's `util.parseEnv` decides what a value means, but it
 * silently skips lines it cannot read, so each entry is cut out and checked here first: a
 * malformed line stops startup with its line number instead of vanishing.
 */
import { parseEnv } from 'node:util';
import type { Catalog } from '../catalog.ts';
import { ConfigFileError } from '../errors.ts';
import { emptyLayer, type ConfigWarning, type Layer, type LayerEntry } from '../layer.ts';
import { readOptionalText } from './read-text.ts';

const ENTRY = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=(.*)$/;
const QUOTES = new Set(['"', "'", '`']);

export async function readDotenvLayer(catalog: Catalog, path: string): Promise<Layer> {
  const text = await readOptionalText(path);
  return text === undefined ? emptyLayer('dotenv') : dotenvLayer(catalog, path, text);
}

export function dotenvLayer(catalog: Catalog, path: string, text: string): Layer {
  const rows = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const entries = new Map<string, LayerEntry>();
  const warnings: ConfigWarning[] = [];
  const warned = new Set<string>();
  for (let index = 0; index < rows.length; index++) {
    const lineNo = index + 1;
    const row = (rows[index] ?? '').trim();
    if (row === '' || row.startsWith('#')) continue;
    const match = ENTRY.exec(row);
    if (match === null) throw new ConfigFileError(path, lineNo, undefined, 'expected KEY=VALUE');
    const name = match[1] ?? '';
    const key = name.toUpperCase();
    const rest = (match[2] ?? '').trimStart();
    let chunk = `${name}=${rest}`;
    const quote = rest.charAt(0);
    if (QUOTES.has(quote)) {
      let tail = rest.slice(1);
      let close = tail.indexOf(quote);
      // A quoted value may run over several lines until its closing quote.
      while (close < 0 && index + 1 < rows.length) {
        index++;
        tail = rows[index] ?? '';
        chunk += `\n${tail}`;
        close = tail.indexOf(quote);
      }
      if (close < 0) throw new ConfigFileError(path, lineNo, key, 'the quoted value is never closed');
      const after = tail.slice(close + 1).trim();
      if (after !== '' && !after.startsWith('#')) {
        throw new ConfigFileError(path, lineNo, key, 'unexpected text after the closing quote');
      }
    }
    if (!catalog.entries.has(key)) {
      // .env is often shared with other tools; only keys that look like ours are worth a word.
      if (catalog.looksOurs(key) && !warned.has(key)) {
        warned.add(key);
        warnings.push({
          key,
          source: 'dotenv',
          message: `${path}:${lineNo}: unknown key ${key} ignored (it may belong to a later version)`,
        });
      }
      continue;
    }
    entries.set(key, { input: parseEnv(chunk)[name] ?? '', where: `${path}:${lineNo}` });
  }
  return { source: 'dotenv', entries, warnings };
}
