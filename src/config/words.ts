/**
 * The words operators type for switches and lists. Shared by bool, tri-state and enum fields so
 * that `on`, `YES ` and `1` mean the same thing everywhere (docs/rules.md#cfg-schema).
 */
export type Tristate = 'auto' | boolean;

export const TRUE_WORDS = ['true', '1', 'yes', 'on'] as const;
export const FALSE_WORDS = ['false', '0', 'no', 'off'] as const;

/**
 * true/false from a boolean, the numbers 1/0 (TOML), or a true/false word (case-insensitive,
 * trimmed). Anything else is `undefined` so the caller can report it.
 */
export function parseBoolWord(input: unknown): boolean | undefined {
  if (typeof input === 'boolean') return input;
  if (input === 1 || input === 0) return input === 1;
  if (typeof input !== 'string') return undefined;
  const word = input.trim().toLowerCase();
  if ((TRUE_WORDS as readonly string[]).includes(word)) return true;
  if ((FALSE_WORDS as readonly string[]).includes(word)) return false;
  return undefined;
}

/** Splits list text, trims every item and drops empty ones. */
export function splitList(text: string, separator: RegExp): string[] {
  return text
    .split(separator)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
