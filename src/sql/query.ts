import type { CompiledQuery, Kysely, RawBuilder } from 'kysely';
import type { BoundQuery } from './program.ts';

/** Anything Kysely can compile: query builders, and raw `sql` templates via `.compile(db)`. */
export interface Compilable {
  compile(): CompiledQuery;
}

/** A query built and compiled per call (its SQL text may vary, e.g. multi-row inserts). */
export function bound(query: Compilable): BoundQuery {
  const compiled = query.compile();
  return { sql: compiled.sql, parameters: compiled.parameters };
}

/** A raw `sql` template bound for the engine `db` belongs to. */
export function compiled<DB>(statement: RawBuilder<unknown>, db: Kysely<DB>): BoundQuery {
  const { sql: text, parameters } = statement.compile(db);
  return { sql: text, parameters };
}

const SENTINEL = '\u0000chorus-param:';

type Slot = { readonly name: string } | { readonly value: unknown };

/**
 * A statement compiled once and bound per call, for the hot path: Kysely's builder and compiler
 * run at construction, not per lookup. `param(name)` marks where a value goes; it returns a
 * sentinel that is recognised in the compiled parameter list and replaced at bind time.
 */
export function template<P extends object>(
  build: (param: <K extends keyof P & string>(name: K) => P[K]) => Compilable,
): (params: P) => BoundQuery {
  const compiled = build((name) => `${SENTINEL}${name}` as never).compile();
  const slots: Slot[] = compiled.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(SENTINEL) ? { name: value.slice(SENTINEL.length) } : { value },
  );
  const sql = compiled.sql;
  return (params) => ({
    sql,
    prepared: true,
    parameters: slots.map((slot) => ('name' in slot ? (params as Record<string, unknown>)[slot.name] : slot.value)),
  });
}
