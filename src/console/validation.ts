/**
 * Schema violations become one coded 400 that names the field (docs/rules.md#style-bad-input), e.g.
 * `body.values.merge_order: expected string or number…`, `body.extra: unknown field`,
 * `params.account: must be integer`. The wording is shared with the hub (src/common/schema-errors.ts).
 */
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { TSchema } from 'typebox';
import { nonIntegerParameter, schemaProblem, type SchemaError } from '../common/schema-errors.ts';
import { CodedError } from './errors.ts';

/**
 * A schema violation as the coded 400 `invalid_field` with `{field, reason}` (and `limit` when the
 * rule has one), so the web console words the field and the reason; `detail` keeps the English line.
 */
export function formatSchemaErrors(errors: FastifySchemaValidationError[], part: string): Error {
  const { field, reason, limit, detail } = schemaProblem(
    errors as SchemaError[],
    part === 'querystring' ? 'query' : part,
  );
  return new CodedError(400, 'invalid_field', { field, reason, ...(limit === undefined ? {} : { limit }) }, detail);
}

/**
 * TypeBox's validator, stricter for path and query integers: its conversion would turn "1.5"
 * into 1, so an integer parameter must be written as an integer before it is converted.
 */
export const consoleValidatorCompiler: FastifySchemaCompiler<TSchema> = (route) => {
  const validate = TypeBoxValidatorCompiler(route);
  if (route.httpPart === 'body') return validate;
  return (value: unknown) => {
    const notInteger = nonIntegerParameter(route.schema, value);
    if (notInteger) return { error: [notInteger] as unknown as Error };
    return validate(value);
  };
};
