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

/** The problem of a failed check, as one line: the unknown or missing field first, else the deepest. */
export function describeSchemaErrors(
  errors: readonly SchemaError[],
  dataVar: string,
  options: DescribeOptions = {},
): string {
  // The validator reports a refused extra property twice ("schema is false" and additionalProperties).
  const relevant = errors.filter(
    (error) => !(error.keyword === 'boolean' && errors.some((other) => other.keyword === 'additionalProperties')),
  );
  const first = relevant[0];
  if (first === undefined) return `${dataVar}: invalid`;
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

function describeGroup(dataVar: string, group: readonly SchemaError[], options: DescribeOptions): string {
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
  const enumError = group.find((error) => error.keyword === 'enum');
  if (enumError) {
    const allowed = (enumError.params.allowedValues as unknown[] | undefined) ?? [];
    return `${path}: expected one of ${allowed.map(String).join(', ')}`;
  }
  const specific = group.find((error) => !['type', 'const', 'anyOf'].includes(error.keyword));
  if (specific) return `${path}: ${messageOf(specific, options)}`;
  const alternatives = group.filter((error) => error.keyword === 'type' || error.keyword === 'const');
  if (group.some((error) => error.keyword === 'anyOf')) {
    if (alternatives.length > 0 && alternatives.every((error) => error.keyword === 'const')) {
      return `${path}: expected one of ${alternatives.map((error) => String(error.params.allowedValue)).join(', ')}`;
    }
    const types = alternatives.map((error) => String(error.params.type ?? JSON.stringify(error.params.allowedValue)));
    return `${path}: expected ${types.length > 0 ? [...new Set(types)].join(' or ') : 'another type'}`;
  }
  return `${path}: ${messageOf(first, options)}`;
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
