import { SECTIONS, type ConfigKey, type ConfigSnapshot } from '../config/index.ts';

/** One line per key: value (secrets masked) and the source it came from, grouped by section. */
export function describeConfig(snapshot: ConfigSnapshot): string {
  const lines: string[] = [];
  for (const section of SECTIONS) {
    lines.push(`[${section.id}] ${section.title}`);
    for (const field of section.fields) {
      const key = field.env as ConfigKey;
      const value = snapshot.raw(key);
      const shown = field.secret ? (value === '' ? '' : '********') : formatValue(value);
      lines.push(`  ${key} = ${shown}  (${snapshot.sourceOf(key)})`);
    }
  }
  for (const warning of snapshot.warnings)
    lines.push(`warning: ${warning.key} (${warning.source}): ${warning.message}`);
  return lines.join('\n');
}

function formatValue(value: unknown): string {
  return Array.isArray(value) ? value.join(',') : String(value);
}
