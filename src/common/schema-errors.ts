/**
 * Schema violations as one line naming the field (docs/rules.md#style-bad-input), shared by the console
 * and the hub: `body.values.merge_order: expected string or number`, `body.extra: unknown field`,
 * `query.limit: must be <= 80`, `body.op: expected one of insert, upsert_answer`.
 */

/** One error as TypeBox and Fastify report it. */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

export interface DescribeOptions {
  /** What a failed `pattern` means, by pattern (for example a UUID); otherwise "invalid format". */
  patterns?: Readonly<Record<string, string>>;
}

/**
 * Why a field was refused, from a small closed set the web console words in the reader's language
 * (`errors.invalid_field` with `reason_<reason>`); stable across validator versions.
 */
export type SchemaReason =
  'extra' | 'required' | 'enum' | 'type' | 'too_long' | 'too_short' | 'range' | 'pattern' | 'format' | 'invalid';

/** One refused field: its path (`body.admins.0`), the reason, a limit when the rule has one, and the English line. */
export interface SchemaProblem {
  field: string;
  reason: SchemaReason;
  limit?: number | string;
  detail: string;
}

/** The problem of a failed check, as one line: the unknown or missing field first, else the deepest. */
export function describeSchemaErrors(
  errors: readonly SchemaError[],
  dataVar: string,
  options: DescribeOptions = {},
): string {
  return schemaProblem(errors, dataVar, options).detail;
}

/** The problem of a failed check, coded: the unknown or missing field first, else the deepest. */
export function schemaProblem(
  errors: readonly SchemaError[],
  dataVar: string,
  options: DescribeOptions = {},
): SchemaProblem {
  // The validator reports a refused extra property twice ("schema is false" and additionalProperties).
  const relevant = errors.filter(
    (error) => !(error.keyword === 'boolean' && errors.some((other) => other.keyword === 'additionalProperties')),
  );
  const first = relevant[0];
  if (first === undefined) return { field: dataVar, reason: 'invalid', detail: `${dataVar}: invalid` };
  const depth = (error: SchemaError) => error.instancePath.split('/').length;
  const deepest = relevant.reduce((best, error) => (depth(error) > depth(best) ? error : best));
  const anchor =
    relevant.find((error) => error.keyword === 'additionalProperties') ??
    relevant.find((error) => error.keyword === 'required') ??
    deepest;
  return describeGroup(
    dataVar,
    relevant.filter((error) => error.instancePath === anchor.instancePath),
    options,
  );
}

function pathOf(dataVar: string, instancePath: string): string {
  const segments = instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  return [dataVar, ...segments].join('.');
}

function problem(field: string, reason: SchemaReason, text: string, limit?: number | string): SchemaProblem {
  return { field, reason, detail: `${field}: ${text}`, ...(limit === undefined ? {} : { limit }) };
}

function describeGroup(dataVar: string, group: readonly SchemaError[], options: DescribeOptions): SchemaProblem {
  const first = group[0] as SchemaError;
  const path = pathOf(dataVar, first.instancePath);
  const additional = group.find((error) => error.keyword === 'additionalProperties');
  if (additional) {
    const names = (additional.params.additionalProperties as unknown[] | undefined) ?? [];
    return problem(`${path}.${String(names[0] ?? '?')}`, 'extra', 'unknown field');
  }
  const required = group.find((error) => error.keyword === 'required');
  if (required) {
    const names =
      (required.params.requiredProperties as unknown[] | undefined) ??
      (required.params.missingProperty !== undefined ? [required.params.missingProperty] : []);
    return problem(`${path}.${String(names[0] ?? '?')}`, 'required', 'required');
  }
  const enumError = group.find((error) => error.keyword === 'enum');
  if (enumError) {
    const allowed = ((enumError.params.allowedValues as unknown[] | undefined) ?? []).map(String).join(', ');
    return problem(path, 'enum', `expected one of ${allowed}`, allowed);
  }
  const specific = group.find((error) => !['type', 'const', 'anyOf'].includes(error.keyword));
  if (specific) return problem(path, reasonOf(specific), messageOf(specific, options), limitOf(specific));
  const alternatives = group.filter((error) => error.keyword === 'type' || error.keyword === 'const');
  if (group.some((error) => error.keyword === 'anyOf')) {
    if (alternatives.length > 0 && alternatives.every((error) => error.keyword === 'const')) {
      const allowed = alternatives.map((error) => String(error.params.allowedValue)).join(', ');
      return problem(path, 'enum', `expected one of ${allowed}`, allowed);
    }
    const types = alternatives.map((error) => String(error.params.type ?? JSON.stringify(error.params.allowedValue)));
    return problem(path, 'type', `expected ${types.length > 0 ? [...new Set(types)].join(' or ') : 'another type'}`);
  }
  return problem(path, reasonOf(first), messageOf(first, options), limitOf(first));
}

const REASONS: Readonly<Record<string, SchemaReason>> = {
  type: 'type',
  const: 'enum',
  enum: 'enum',
  maxLength: 'too_long',
  maxItems: 'too_long',
  maxProperties: 'too_long',
  minLength: 'too_short',
  minItems: 'too_short',
  minProperties: 'too_short',
  minimum: 'range',
  maximum: 'range',
  exclusiveMinimum: 'range',
  exclusiveMaximum: 'range',
  multipleOf: 'range',
  pattern: 'pattern',
  format: 'format',
  required: 'required',
  additionalProperties: 'extra',
};

function reasonOf(error: SchemaError): SchemaReason {
  return REASONS[error.keyword] ?? 'invalid';
}

/** The bound a length or range check carries (`maxLength: 64` → 64), when it has one. */
function limitOf(error: SchemaError): number | string | undefined {
  if (error.keyword === 'const') return String(error.params.allowedValue);
  const limit = error.params.limit;
  return typeof limit === 'number' || typeof limit === 'string' ? limit : undefined;
}

function messageOf(error: SchemaError, options: DescribeOptions): string {
  if (error.keyword === 'pattern') {
    return options.patterns?.[String(error.params.pattern)] ?? 'invalid format';
  }
  if (error.keyword === 'const') return `expected ${JSON.stringify(error.params.allowedValue)}`;
  return error.message ?? 'invalid';
}

const INTEGER_TEXT = /^[+-]?\d{1,20}$/;

/**
 * Path and query integers must be written as integers: TypeBox's conversion would turn "1.5"
 * into 1. The error for the first that is not, or null.
 */
export function nonIntegerParameter(schema: unknown, value: unknown): (SchemaError & { schemaPath: string }) | null {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const input = (value ?? {}) as Record<string, unknown>;
  for (const [name, property] of Object.entries(properties)) {
    if (property.type !== 'integer') continue;
    const raw = input[name];
    if (typeof raw === 'string' && !INTEGER_TEXT.test(raw)) {
      return {
        keyword: 'type',
        instancePath: `/${name}`,
        schemaPath: '#',
        params: { type: 'integer' },
        message: 'must be integer',
      };
    }
  }
  return null;
}
