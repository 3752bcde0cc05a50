/**
 * Schema violations become one 400 detail that names the field (rule style-bad-input), e.g.
 * `body.values.merge_order: expected string or number…`, `body.extra: unknown field`,
 * `params.account: must be integer`.
 */
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifySchemaValidationError } from 'fastify/types/schema.js';
import type { TSchema } from 'typebox';

type SchemaError = FastifySchemaValidationError & { params: Record<string, unknown> };

function pathOf(dataVar: string, instancePath: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return [dataVar, ...segments].join('.');
}

function describe(dataVar: string, group: SchemaError[]): string {
  const first = group[0] as SchemaError;
  const path = pathOf(dataVar, first.instancePath);
  const additional = group.find((error) => error.keyword === 'additionalProperties');
  if (additional) {
    const names = (additional.params.additionalProperties as unknown[] | undefined) ?? [];
    return `${path}.${String(names[0] ?? '?')}: unknown field`;
  }
  const required = group.find((error) => error.keyword === 'required');
  if (required) {
    const names =
      (required.params.requiredProperties as unknown[] | undefined) ??
      (required.params.missingProperty !== undefined ? [required.params.missingProperty] : []);
    return `${path}.${String(names[0] ?? '?')}: required`;
  }
  if (group.some((error) => error.keyword === 'anyOf')) {
    const types = group
      .filter((error) => error.keyword === 'type' || error.keyword === 'const')
      .map((error) => String(error.params.type ?? JSON.stringify(error.params.allowedValue)));
    return `${path}: expected ${types.length > 0 ? [...new Set(types)].join(' or ') : 'another type'}`;
  }
  if (first.keyword === 'enum') {
    const allowed = (first.params.allowedValues as unknown[] | undefined) ?? [];
    return `${path}: expected one of ${allowed.map(String).join(', ')}`;
  }
  return `${path}: ${first.message ?? 'invalid'}`;
}

export function formatSchemaErrors(errors: FastifySchemaValidationError[], part: string): Error {
  const dataVar = part === 'querystring' ? 'query' : part;
  // The validator reports a refused extra property twice ("schema is false" and additionalProperties).
  const relevant = (errors as SchemaError[]).filter(
    (error) => !(error.keyword === 'boolean' && errors.some((other) => other.keyword === 'additionalProperties')),
  );
  const first = relevant[0];
  if (first === undefined) return new Error(`${dataVar}: invalid`);
  const additional = relevant.find((error) => error.keyword === 'additionalProperties');
  const anchor = additional ?? first;
  const group = relevant.filter((error) => error.instancePath === anchor.instancePath);
  return new Error(describe(dataVar, group));
}

/**
 * TypeBox's validator, stricter for path and query integers: its conversion would turn "1.5"
 * into 1, so an integer parameter must be written as an integer before it is converted.
 */
export const consoleValidatorCompiler: FastifySchemaCompiler<TSchema> = (route) => {
  const validate = TypeBoxValidatorCompiler(route);
  if (route.httpPart === 'body') return validate;
  const properties = (route.schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const integers = Object.entries(properties)
    .filter(([, schema]) => schema.type === 'integer')
    .map(([name]) => name);
  if (integers.length === 0) return validate;
  return (value: unknown) => {
    const input = (value ?? {}) as Record<string, unknown>;
    for (const name of integers) {
      const raw = input[name];
      if (typeof raw === 'string' && !INTEGER_TEXT.test(raw)) {
        const error = { keyword: 'type', instancePath: `/${name}`, schemaPath: '#', params: { type: 'integer' } };
        return { error: [{ ...error, message: 'must be integer' }] as unknown as Error };
      }
    }
    return validate(value);
  };
};

const INTEGER_TEXT = /^[+-]?\d{1,20}$/;
