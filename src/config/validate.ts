/**
 * Strict checking of values offered by code (the console save, test helpers): unlike file
 * sources, nothing falls back here; the first bad key is refused with its name (docs/rules.md#style-bad-input).
 */
import type { Catalog } from './catalog.ts';
import { ConfigValidationError } from './errors.ts';
import { shownInput } from './resolve.ts';

/**
 * Canonical value per upper-case key; `null` (when `allowNull`) means "remove this setting".
 * Throws `ConfigValidationError` naming the key as given.
 */
export function validateValues(
  catalog: Catalog,
  values: Readonly<Record<string, unknown>>,
  options: { forConsole: boolean },
): Map<string, unknown> {
  const accepted = new Map<string, unknown>();
  for (const [name, input] of Object.entries(values)) {
    const key = name.toUpperCase();
    const entry = catalog.entries.get(key);
    if (entry === undefined) throw new ConfigValidationError(name, `${name}: unknown setting`);
    if (options.forConsole && !entry.field.consoleSettable) {
      throw new ConfigValidationError(name, `${key}: cannot be set from the console`);
    }
    if (input === null && options.forConsole) {
      accepted.set(key, null);
      continue;
    }
    const parsed = entry.field.parse(input);
    if (!parsed.ok) throw new ConfigValidationError(name, `${key}: ${parsed.problem}${shownInput(entry, input)}`);
    accepted.set(key, parsed.value);
  }
  return accepted;
}
