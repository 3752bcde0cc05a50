/**
 * Schema violations become one 400 detail that names the field (docs/rules.md#style-bad-input), e.g.
 * `body.values.merge_order: expected string or number…`, `body.extra: unknown field`,
 * `params.account: must be integer`. The wording is shared with the hub (src/common/schema-errors.ts).
 */
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { TSchema } from 'typebox';
import { describeSchemaErrors, nonIntegerParameter, type SchemaError } from '../common/schema-errors.ts';

export function formatSchemaErrors(errors: FastifySchemaValidationError[], part: string): Error {
  return new Error(describeSchemaErrors(errors as SchemaError[], part === 'querystring' ? 'query' : part));
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
