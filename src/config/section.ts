/**
 * A section is a titled list of fields sharing an env-key prefix. The property name of each
 * field in the section's value object is derived from its env key (prefix stripped, camelCase),
 * both at runtime and in the type, so names cannot drift from keys:
 * `CHORUS_CORPUS_REPLY_MESSAGES_CAP` with prefix `CHORUS_CORPUS_` is `replyMessagesCap`.
 */
import Type, { type TSchema } from 'typebox';
import type { Field, FieldValue } from './field.ts';

export interface Section<
  Id extends string = string,
  P extends string = string,
  Fs extends readonly Field<unknown, string>[] = readonly Field<unknown, string>[],
> {
  readonly id: Id;
  /** English, shown as the form title. */
  readonly title: string;
  /** Stripped from every env key to name the field; every key must start with it. */
  readonly prefix: P;
  readonly fields: Fs;
}

type CamelTail<S extends string> = S extends `${infer Head}_${infer Rest}`
  ? `${Capitalize<Lowercase<Head>>}${CamelTail<Rest>}`
  : Capitalize<Lowercase<S>>;

/** `MAX_PER_MINUTE` → `maxPerMinute`. */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Rest}`
  ? `${Lowercase<Head>}${CamelTail<Rest>}`
  : Lowercase<S>;

export type FieldName<K extends string, P extends string> = K extends `${P}${infer Rest}` ? CamelCase<Rest> : never;

/** The typed, read-only value object of a section. */
export type SectionValues<S extends Section> = {
  readonly [F in S['fields'][number] as FieldName<F['env'], S['prefix']>]: FieldValue<F>;
};

export function defineSection<
  const Id extends string,
  const P extends string,
  const Fs extends readonly Field<unknown, string>[],
>(section: { id: Id; title: string; prefix: P; fields: Fs }): Section<Id, P, Fs> {
  return Object.freeze({ ...section, fields: Object.freeze([...section.fields]) as unknown as Fs });
}

/** Runtime twin of `FieldName`; throws on a key outside the prefix (a declaration mistake). */
export function fieldName(env: string, prefix: string): string {
  if (!env.startsWith(prefix) || env.length === prefix.length) {
    throw new Error(`config key ${env} does not start with its section prefix ${prefix}`);
  }
  const [head = '', ...rest] = env.slice(prefix.length).toLowerCase().split('_');
  return head + rest.map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');
}

/**
 * JSON Schema of a section's values keyed by env key, as the console settings file and the
 * console save route use them. Descriptions, defaults, bounds and `x-group`/`x-secret` hints ride
 * along for the form and the OpenAPI document.
 */
export function sectionJsonSchema(section: Section): TSchema {
  const properties: Record<string, TSchema> = {};
  for (const f of section.fields) properties[f.env] = f.schema;
  return Type.Object(properties, { title: section.title, 'x-section': section.id, additionalProperties: false });
}
