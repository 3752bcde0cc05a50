/**
 * Log fields are bounded (docs/guide/troubleshooting.md#limits): a string is cut at LOG_FIELD_MAX_CHARS with a marker
 * saying how much was left out, arrays keep their first items, and nesting stops at a depth. A
 * peer's or a client's input that reaches a log line can then never make the line, the log file
 * or the in-memory log larger than a few kilobytes.
 */
export const LOG_FIELD_LIMITS = { stringMaxChars: 2048, arrayMaxItems: 32, maxDepth: 4 } as const;

export function boundLogFields(object: Record<string, unknown>): Record<string, unknown> {
  return boundObject(object, 0) as Record<string, unknown>;
}

function bound(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return boundString(value);
  if (typeof value !== 'object' || value === null) return value;
  // Errors go to pino's own serialiser (message and stack are ours, not a peer's).
  if (value instanceof Error) return value;
  if (depth >= LOG_FIELD_LIMITS.maxDepth) return '[nested too deep]';
  if (Array.isArray(value)) {
    const kept = value.slice(0, LOG_FIELD_LIMITS.arrayMaxItems).map((item) => bound(item, depth + 1));
    const left = value.length - kept.length;
    return left > 0 ? [...kept, `…[+${left} items]`] : kept;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) return value;
  return boundObject(value as Record<string, unknown>, depth);
}

function boundObject(object: Record<string, unknown>, depth: number): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key of Object.keys(object)) {
    const value = object[key];
    const bounded = bound(value, depth + 1);
    if (bounded !== value) {
      out ??= { ...object };
      out[key] = bounded;
    }
  }
  return out ?? object;
}

function boundString(text: string): string {
  const max = LOG_FIELD_LIMITS.stringMaxChars;
  return text.length <= max ? text : `${text.slice(0, max)}…[+${text.length - max} chars]`;
}
