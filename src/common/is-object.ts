/** A plain object (not null, not an array): the first check on any JSON a peer sent. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
