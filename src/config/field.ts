/**
 * Field declarations: one object per configuration key carries its env key, kind, default,
 * bounds, UI hints and its parser. The TypeScript value type of a field is inferred from the
 * builder call, so a section's type is never written by hand (docs/rules.md#style-schema). Each field also
 * carries a TypeBox JSON Schema of its canonical value so the console can reuse it for OpenAPI.
 */
import Type, { type TSchema } from 'typebox';
import { FALSE_WORDS, TRUE_WORDS, parseBoolWord, splitList, type Tristate } from './words.ts';

export type { Tristate } from './words.ts';

export type FieldKind = 'string' | 'int' | 'float' | 'bool' | 'tristate' | 'enum' | 'list';

/**
 * Result of parsing one raw value. `problem` never contains the value itself, so it is safe to
 * print for secret fields; the caller decides whether the value may be shown.
 */
export type Parsed<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

export interface Field<T = unknown, K extends string = string> {
  readonly env: K;
  readonly kind: FieldKind;
  readonly default: T;
  readonly min?: number;
  readonly max?: number;
  readonly choices?: readonly string[];
  /** English, one line. */
  readonly description: string;
  /** UI grouping label. */
  readonly group: string;
  /** A secret is never printed in warnings or errors; only its key is. */
  readonly secret: boolean;
  /** False for keys the console settings file cannot set (CHORUS_DATA_DIR holds that file). */
  readonly consoleSettable: boolean;
  /**
   * A credential the operator must be able to use as given: a value that does not parse stops the
   * start (and a reload keeps the running configuration) instead of being ignored with a warning
   * (docs/rules.md#cfg-credentials).
   */
  readonly strict: boolean;
  /** JSON Schema of the canonical value (what the snapshot holds). */
  readonly schema: TSchema;
  /** Accepts a string (env, .env) or a typed value (TOML, JSON) and returns the canonical value. */
  readonly parse: (input: unknown) => Parsed<T>;
}

/** The value type a field declaration produces. */
export type FieldValue<F> = F extends Field<infer T, string> ? T : never;

interface Common<K extends string> {
  env: K;
  description: string;
  group: string;
  secret?: boolean;
  consoleSettable?: boolean;
  strict?: boolean;
}

const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
const bad = (problem: string): Parsed<never> => ({ ok: false, problem });

/** Whitespace-only text means "use the default" for scalar kinds, as an empty env line does. */
const isBlank = (input: unknown): boolean => typeof input === 'string' && input.trim() === '';

function annotations(o: Common<string>, extra: Record<string, unknown>): Record<string, unknown> {
  return {
    description: o.description,
    'x-env': o.env,
    'x-group': o.group,
    ...(o.secret === true ? { 'x-secret': true, writeOnly: true } : {}),
    ...extra,
  };
}

function finish<T, K extends string>(
  o: Common<K>,
  rest: Omit<Field<T, K>, 'env' | 'description' | 'group' | 'secret' | 'consoleSettable' | 'strict'>,
): Field<T, K> {
  return Object.freeze({
    env: o.env,
    description: o.description,
    group: o.group,
    secret: o.secret ?? false,
    consoleSettable: o.consoleSettable ?? true,
    strict: o.strict ?? false,
    ...rest,
  });
}

function rangeText(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return ` in ${min}..${max}`;
  if (min !== undefined) return ` >= ${min}`;
  if (max !== undefined) return ` <= ${max}`;
  return '';
}

function inRange(n: number, min: number | undefined, max: number | undefined): boolean {
  return (min === undefined || n >= min) && (max === undefined || n <= max);
}

/**
 * A free-text field. Scalars from TOML (numbers, booleans) are taken as their text, as they would
 * be in an env file. `check` normalises or rejects the text (for example a URL path).
 */
function stringField<const K extends string>(
  o: Common<K> & { default: string; check?: (text: string) => Parsed<string> },
): Field<string, K> {
  const parse = (input: unknown): Parsed<string> => {
    let text: string;
    if (typeof input === 'string') text = input;
    else if (typeof input === 'number' || typeof input === 'boolean') text = String(input);
    else return bad('expected a string');
    return o.check ? o.check(text) : ok(text);
  };
  return finish(o, {
    kind: 'string',
    default: o.default,
    schema: Type.String(annotations(o, { default: o.default })),
    parse,
  });
}

const INTEGER_TEXT = /^[+-]?\d+$/;
const FLOAT_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function numberField<const K extends string>(
  kind: 'int' | 'float',
  o: Common<K> & { default: number; min?: number; max?: number },
): Field<number, K> {
  const want = `expected ${kind === 'int' ? 'an integer' : 'a number'}${rangeText(o.min, o.max)}`;
  const parse = (input: unknown): Parsed<number> => {
    if (isBlank(input)) return ok(o.default);
    let n: number;
    if (typeof input === 'number') n = input;
    else if (typeof input === 'bigint') n = Number(input);
    else if (typeof input === 'string') {
      const text = input.trim();
      if (!(kind === 'int' ? INTEGER_TEXT : FLOAT_TEXT).test(text)) return bad(want);
      n = Number(text);
    } else return bad(want);
    if (!Number.isFinite(n) || (kind === 'int' && !Number.isInteger(n))) return bad(want);
    return inRange(n, o.min, o.max) ? ok(n) : bad(want);
  };
  const bounds = {
    default: o.default,
    ...(o.min !== undefined ? { minimum: o.min } : {}),
    ...(o.max !== undefined ? { maximum: o.max } : {}),
  };
  const schema = kind === 'int' ? Type.Integer(annotations(o, bounds)) : Type.Number(annotations(o, bounds));
  return finish(o, {
    kind,
    default: o.default,
    ...(o.min !== undefined ? { min: o.min } : {}),
    ...(o.max !== undefined ? { max: o.max } : {}),
    schema,
    parse,
  });
}

const BOOL_HINT = `expected true or false (also ${TRUE_WORDS.join('/')} and ${FALSE_WORDS.join('/')})`;

function boolField<const K extends string>(o: Common<K> & { default: boolean }): Field<boolean, K> {
  const parse = (input: unknown): Parsed<boolean> => {
    if (isBlank(input)) return ok(o.default);
    const b = parseBoolWord(input);
    return b === undefined ? bad(BOOL_HINT) : ok(b);
  };
  return finish(o, {
    kind: 'bool',
    default: o.default,
    schema: Type.Boolean(annotations(o, { default: o.default })),
    parse,
  });
}

/** auto | true | false; an empty value is `auto` (not the default), as in the origin (docs/rules.md#corpus-sources). */
function tristateField<const K extends string>(o: Common<K> & { default: Tristate }): Field<Tristate, K> {
  const parse = (input: unknown): Parsed<Tristate> => {
    if (isBlank(input)) return ok('auto');
    if (typeof input === 'string' && input.trim().toLowerCase() === 'auto') return ok('auto');
    const b = parseBoolWord(input);
    return b === undefined ? bad(`expected auto, ${BOOL_HINT.slice('expected '.length)}`) : ok(b);
  };
  const schema = Type.Union([Type.Literal('auto'), Type.Boolean()], annotations(o, { default: o.default }));
  return finish(o, { kind: 'tristate', default: o.default, schema, parse });
}

/**
 * One of a fixed set of lower-case words. `aliases` maps other accepted spellings (already
 * lower-cased) to a choice, e.g. `true` → `prefetch` for the remote find mode.
 */
function enumField<const K extends string, const C extends readonly [string, ...string[]]>(
  o: Common<K> & { choices: C; default: C[number]; aliases?: Readonly<Record<string, C[number]>> },
): Field<C[number], K> {
  const choices: readonly string[] = o.choices;
  const want = `expected one of ${choices.join(', ')}`;
  const parse = (input: unknown): Parsed<C[number]> => {
    if (isBlank(input)) return ok(o.default);
    if (typeof input !== 'string' && typeof input !== 'boolean' && typeof input !== 'number') return bad(want);
    const word = String(input).trim().toLowerCase();
    const aliased = o.aliases !== undefined && Object.hasOwn(o.aliases, word) ? o.aliases[word] : undefined;
    if (aliased !== undefined) return ok(aliased);
    const index = choices.indexOf(word);
    return index < 0 ? bad(want) : ok(o.choices[index] as C[number]);
  };
  const schema = Type.Enum([...o.choices], annotations(o, { default: o.default }));
  return finish(o, { kind: 'enum', default: o.default, choices: Object.freeze([...o.choices]), schema, parse });
}

/**
 * A list of strings: from env/.env a text split on `separator` (default `|` or newline), from
 * TOML/JSON an array of strings. Items are trimmed and empties dropped; `normalise` may narrow
 * the item type (the merge order keeps only known source names).
 */
function listField<const K extends string, T extends string = string>(
  o: Common<K> & {
    default: readonly T[];
    separator?: RegExp;
    normalise?: (items: readonly string[]) => readonly T[];
    /** Checks (and may normalise) each item; the first bad one rejects the list, naming its position. */
    checkItem?: (item: string) => Parsed<string>;
  },
): Field<readonly T[], K> {
  const separator = o.separator ?? /[|\n]/;
  const want = 'expected a list of strings';
  const parse = (input: unknown): Parsed<readonly T[]> => {
    let items: string[];
    if (typeof input === 'string') items = splitList(input, separator);
    else if (Array.isArray(input) && input.every((item) => typeof item === 'string')) {
      items = (input as string[]).map((item) => item.trim()).filter((item) => item !== '');
    } else return bad(want);
    if (o.checkItem) {
      for (const [index, item] of items.entries()) {
        const checked = o.checkItem(item);
        if (!checked.ok) return bad(`item ${index + 1}: ${checked.problem}`);
        items[index] = checked.value;
      }
    }
    const value = o.normalise ? o.normalise(items) : (items as readonly string[] as readonly T[]);
    return ok(Object.freeze([...value]));
  };
  const schema = Type.Array(Type.String(), annotations(o, { default: [...o.default] }));
  return finish(o, { kind: 'list', default: Object.freeze([...o.default]), schema, parse });
}

/** The builders, grouped so a section file reads `field.int({...})`. */
export const field = Object.freeze({
  string: stringField,
  int: <const K extends string>(o: Common<K> & { default: number; min?: number; max?: number }) =>
    numberField('int', o),
  float: <const K extends string>(o: Common<K> & { default: number; min?: number; max?: number }) =>
    numberField('float', o),
  bool: boolField,
  tristate: tristateField,
  enum: enumField,
  list: listField,
});

export { ok as parsedOk, bad as parsedBad };
