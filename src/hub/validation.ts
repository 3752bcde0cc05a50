/**
 * Request validation: one 400 `{detail}` that names the field (rule style-bad-input), for example
 * `body.context.keywords: required`, `query.limit: must be <= 80`,
 * `body.op: expected one of insert, upsert_answer`.
 */
import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { Value } from 'typebox/value';
import { HubError } from './errors.ts';

interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The deployment id: a UUID (any version), compared lower-cased. */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

function pathOf(dataVar: string, instancePath: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return [dataVar, ...segments].join('.');
}

function describe(dataVar: string, group: readonly SchemaError[]): string {
  const first = group[0] as SchemaError;
  const path = pathOf(dataVar, first.instancePath);
  const required = group.find((error) => error.keyword === 'required');
  if (required) {
    const names = (required.params.requiredProperties as unknown[] | undefined) ?? [];
    return `${path}.${String(names[0] ?? '?')}: required`;
  }
  const alternatives = group.filter((error) => error.keyword === 'type' || error.keyword === 'const');
  const specific = group.find((error) => !['type', 'const', 'anyOf'].includes(error.keyword));
  if (specific) return `${path}: ${messageOf(specific)}`;
  if (group.some((error) => error.keyword === 'anyOf') && alternatives.length > 0) {
    const consts = alternatives.filter((error) => error.keyword === 'const');
    if (consts.length === alternatives.length) {
      return `${path}: expected one of ${consts.map((error) => String(error.params.allowedValue)).join(', ')}`;
    }
    const types = alternatives.map((error) => String(error.params.type ?? JSON.stringify(error.params.allowedValue)));
    return `${path}: expected ${[...new Set(types)].join(' or ')}`;
  }
  return `${path}: ${messageOf(first)}`;
}

function messageOf(error: SchemaError): string {
  if (error.keyword === 'pattern') return error.params.pattern === UUID_PATTERN ? 'expected a UUID' : 'invalid format';
  if (error.keyword === 'const') return `expected ${JSON.stringify(error.params.allowedValue)}`;
  return error.message ?? 'invalid';
}

/** The first problem of a failed check, as one line naming the field. */
export function describeErrors(errors: readonly SchemaError[], dataVar: string): string {
  const first = errors[0];
  if (first === undefined) return `${dataVar}: invalid`;
  // The deepest path first: "body.context.answers.0.keywords" says more than "body.context.answers".
  const deepest = errors.reduce((best, error) =>
    error.instancePath.split('/').length > best.instancePath.split('/').length ? error : best,
  );
  const anchor = errors.find((error) => error.keyword === 'required') ?? deepest;
  return describe(
    dataVar,
    errors.filter((error) => error.instancePath === anchor.instancePath),
  );
}

export function formatSchemaErrors(errors: readonly unknown[], part: string): Error {
  return new HubError(400, describeErrors(errors as SchemaError[], part === 'querystring' ? 'query' : part));
}

const INTEGER_TEXT = /^[+-]?\d{1,15}$/;

/**
 * TypeBox's validator; query integers must be written as integers ("1.5" is refused, not
 * truncated) before they are converted.
 */
export const hubValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema);
  const integers =
    httpPart === 'body'
      ? []
      : Object.entries((schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {})
          .filter(([, property]) => property.type === 'integer')
          .map(([name]) => name);
  return (value: unknown) => {
    if (httpPart !== 'body') {
      const input = (value ?? {}) as Record<string, unknown>;
      for (const name of integers) {
        const raw = input[name];
        if (typeof raw === 'string' && !INTEGER_TEXT.test(raw)) {
          const error = { keyword: 'type', instancePath: `/${name}`, params: { type: 'integer' } };
          return { error: [{ ...error, schemaPath: '#', message: 'must be integer' }] as unknown as Error };
        }
      }
    }
    const converted = httpPart === 'body' ? value : Value.Convert(schema, value);
    if (check.Check(converted)) return { value: converted };
    return { error: check.Errors(converted) as unknown as Error };
  };
};

/** A compiled check used inside a handler (a body whose shape depends on its `op`). */
export function compileCheck<T>(schema: TSchema, dataVar: string): (value: unknown) => T {
  const check = Compile(schema);
  return (value) => {
    if (check.Check(value)) return value as T;
    throw new HubError(400, describeErrors(check.Errors(value) as unknown as SchemaError[], dataVar));
  };
}
