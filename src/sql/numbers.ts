/**
 * A number column as a driver may hand it back. PostgreSQL's bigint and numeric arrive as strings
 * unless parsed (engine-postgres.ts parses them per pool), and Kysely types aggregates such as
 * `COUNT(*)` as `number | string | bigint` for that reason; SQLite returns numbers.
 */
export type DbNumber = number | string | bigint;

/** A number column's value as a number (our ids, times and counts fit in a double). */
export function toNumber(value: DbNumber): number {
  return Number(value);
}

/** As toNumber; `fallback` for no row or SQL NULL (e.g. MAX over an empty table). */
export function toNumberOr(value: DbNumber | null | undefined, fallback: number): number {
  return value === null || value === undefined ? fallback : Number(value);
}
