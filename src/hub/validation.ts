/**
 * Request validation: one 400 `{detail}` that names the field (docs/rules.md#style-bad-input), for example
 * `body.context.keywords: required`, `query.limit: must be <= 80`,
 * `body.op: expected one of insert, upsert_answer`. The wording is shared with the console
 * (src/common/schema-errors.ts).
 */
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { HttpError } from '../common/http-error.ts';
import { describeSchemaErrors, nonIntegerParameter, type SchemaError } from '../common/schema-errors.ts';

/** The deployment id: a UUID (any version), compared lower-cased. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

/** The first problem of a failed check, as one line naming the field. */
export function describeErrors(errors: readonly SchemaError[], dataVar: string): string {
  return describeSchemaErrors(errors, dataVar, { patterns: { [UUID_PATTERN]: 'expected a UUID' } });
}

export function formatSchemaErrors(errors: readonly unknown[], part: string): Error {
  // Fastify hands back, untyped, what hubValidatorCompiler returned as `error`: TypeBox's errors.
  return new HttpError(400, describeErrors(errors as SchemaError[], part === 'querystring' ? 'query' : part));
}

/**
 * TypeBox's validator; query integers must be written as integers ("1.5" is refused, not
 * truncated) before they are converted.
 */
export const hubValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema);
  return (value: unknown) => {
    // Fastify types a validator's `error` as an Error, but passes it on untouched to
    // formatSchemaErrors (server.ts); TypeBox's error list travels through it that way.
    if (httpPart !== 'body') {
      const notInteger = nonIntegerParameter(schema, value);
      if (notInteger) return { error: [notInteger] as unknown as Error };
    }
    const converted = httpPart === 'body' ? value : Value.Convert(schema, value);
    if (check.Check(converted)) return { value: converted };
    return { error: check.Errors(converted) as unknown as Error };
  };
};

/** A compiled check used inside a handler (a body whose shape depends on its `op`). */
export function compileCheck<T>(schema: TSchema, dataVar: string): (value: unknown) => T {
  const check = Compile(schema);
  // The caller names the Static type of `schema` as T; TypeBox's guard cannot relate the two. Its
  // errors carry the fields SchemaError reads, under TypeBox's own (wider) error type.
  return (value) => {
    if (check.Check(value)) return value as T;
    throw new HttpError(400, describeErrors(check.Errors(value) as unknown as SchemaError[], dataVar));
  };
}
