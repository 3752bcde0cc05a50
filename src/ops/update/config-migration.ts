/**
 * Config migration: finds keys of `.env` and `chorus.toml` (in the project folder) that were
 * renamed or removed (config-keys.ts), lists what would change, and rewrites each file that has
 * any, atomically, after copying it to `<file>.bak-<time>`. A renamed key keeps its line and value
 * under the new name; a removed key, or an old key whose new name is already set in the same
 * file, is commented out with the reason. Values are never shown (they may be secrets); whether
 * the value is valid for the new key is. A second apply finds nothing and changes nothing.
 */
import { copyFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildCatalog } from '../../config/catalog.ts';
import { writeFileAtomic } from '../../config/atomic-file.ts';
import { fateOf } from './config-keys.ts';

export const MIGRATED_FILES = ['.env', 'chorus.toml'] as const;
type FileName = (typeof MIGRATED_FILES)[number];

export interface MigrationItem {
  file: FileName;
  line: number;
  key: string;
  action: 'rename' | 'remove';
  to: string | null;
  reason: string;
  /** For a rename: whether the value is valid for the new key (null for a removal). */
  value_ok: boolean | null;
  problem: string | null;
}

export interface MigrationCheck {
  items: MigrationItem[];
  /** Files that would be rewritten. */
  files: FileName[];
  needed: boolean;
}

export interface MigrationApplied extends MigrationCheck {
  /** Backups written (file names in the project folder). */
  backups: string[];
  /** What is left to do afterwards (nothing, normally). */
  after: MigrationCheck;
}

interface Entry {
  key: string;
  /** 0-based line indexes the entry spans (a quoted or bracketed value may run over several). */
  first: number;
  last: number;
  /** The raw value text, for the validity check. */
  value: string;
  /** Where the key name starts and ends on the first line. */
  keyStart: number;
}

const MARK = '# chorus config migration:';

export async function checkConfigMigration(projectDir: string): Promise<MigrationCheck> {
  const items: MigrationItem[] = [];
  for (const file of MIGRATED_FILES) {
    const text = await readFile(join(projectDir, file), 'utf8').catch(() => null);
    if (text !== null) items.push(...plan(file, text).items);
  }
  const files = MIGRATED_FILES.filter((file) => items.some((item) => item.file === file));
  return { items, files, needed: items.length > 0 };
}

export async function applyConfigMigration(projectDir: string, nowMs: number): Promise<MigrationApplied> {
  const items: MigrationItem[] = [];
  const backups: string[] = [];
  const stamp = new Date(nowMs).toISOString().replace(/[:.]/g, '-');
  for (const file of MIGRATED_FILES) {
    const path = join(projectDir, file);
    const text = await readFile(path, 'utf8').catch(() => null);
    if (text === null) continue;
    const planned = plan(file, text);
    if (planned.items.length === 0) continue;
    const backup = `${file}.bak-${stamp}`;
    await copyFile(path, join(projectDir, backup));
    await writeFileAtomic(path, planned.rewritten, { mode: 0o600 });
    backups.push(backup);
    items.push(...planned.items);
  }
  const files = MIGRATED_FILES.filter((file) => items.some((item) => item.file === file));
  return { items, files, needed: items.length > 0, backups, after: await checkConfigMigration(projectDir) };
}

function plan(file: FileName, text: string): { items: MigrationItem[]; rewritten: string } {
  const catalog = buildCatalog();
  const lines = text.split('\n');
  const entries = file === '.env' ? envEntries(lines) : tomlEntries(lines);
  const present = new Set(entries.map((entry) => entry.key));
  const items: MigrationItem[] = [];
  // Back to front, so the line numbers of earlier entries stay put while lines are rewritten.
  for (const entry of [...entries].reverse()) {
    const fate = fateOf(entry.key, (key) => catalog.entries.has(key));
    if (fate === null) continue;
    const firstLine = lines[entry.first] ?? '';
    if (fate.to !== null && !present.has(fate.to)) {
      const field = catalog.entries.get(fate.to)?.field;
      const parsed = field?.parse(unquote(entry.value));
      lines[entry.first] =
        firstLine.slice(0, entry.keyStart) + fate.to + firstLine.slice(entry.keyStart + entry.key.length);
      items.unshift({
        file,
        line: entry.first + 1,
        key: entry.key,
        action: 'rename',
        to: fate.to,
        reason: fate.reason,
        value_ok: parsed ? parsed.ok : null,
        problem: parsed && !parsed.ok ? parsed.problem : null,
      });
      continue;
    }
    const reason = fate.to !== null ? `superseded: ${fate.to} is already set in this file` : fate.reason;
    for (let index = entry.last; index >= entry.first; index--) lines[index] = `# ${lines[index] ?? ''}`;
    lines.splice(entry.first, 0, `${MARK} ${entry.key} removed (${reason})`);
    items.unshift({
      file,
      line: entry.first + 1,
      key: entry.key,
      action: 'remove',
      to: fate.to,
      reason,
      value_ok: null,
      problem: null,
    });
  }
  return { items, rewritten: lines.join('\n') };
}

const ENV_ENTRY = /^(\s*(?:export\s+)?)([A-Za-z_][A-Za-z0-9_.-]*)\s*=(.*)$/;

function envEntries(lines: readonly string[]): Entry[] {
  const entries: Entry[] = [];
  for (let index = 0; index < lines.length; index++) {
    const match = ENV_ENTRY.exec(lines[index] ?? '');
    if (!match) continue;
    const first = index;
    const rest = (match[3] ?? '').trimStart();
    const quote = rest.charAt(0);
    let value = rest;
    if (quote === '"' || quote === "'" || quote === '`') {
      // A quoted value may run over several lines until its closing quote.
      let tail = rest.slice(1);
      while (!tail.includes(quote) && index + 1 < lines.length) {
        index++;
        tail = lines[index] ?? '';
        value += `\n${tail}`;
      }
    }
    entries.push({ key: (match[2] ?? '').toUpperCase(), first, last: index, value, keyStart: (match[1] ?? '').length });
  }
  return entries;
}

const TOML_ENTRY = /^(\s*)([A-Za-z_][A-Za-z0-9_-]*)\s*=(.*)$/;

/** Top-level `KEY = value` entries (Chorus reads no tables); a bracketed value may span lines. */
function tomlEntries(lines: readonly string[]): Entry[] {
  const entries: Entry[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (/^\s*\[/.test(line)) break;
    const match = TOML_ENTRY.exec(line);
    if (!match) continue;
    const first = index;
    let value = (match[3] ?? '').trim();
    let depth = bracketDepth(value);
    while (depth > 0 && index + 1 < lines.length) {
      index++;
      value += `\n${lines[index] ?? ''}`;
      depth += bracketDepth(lines[index] ?? '');
    }
    entries.push({ key: (match[2] ?? '').toUpperCase(), first, last: index, value, keyStart: (match[1] ?? '').length });
  }
  return entries;
}

function bracketDepth(text: string): number {
  const bare = text.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '').replace(/#.*$/, '');
  return (bare.match(/\[/g) ?? []).length - (bare.match(/]/g) ?? []).length;
}

/** The value as a string for the validity check (quotes and trailing comments dropped). */
function unquote(value: string): string {
  const text = value.trim();
  const quoted = /^(["'`])([\s\S]*)\1(\s*#.*)?$/.exec(text);
  if (quoted) return quoted[2] ?? '';
  return text.replace(/\s+#.*$/, '');
}
