import type { CompiledQuery, Kysely, RawBuilder } from 'kysely';
import type { BoundQuery } from './program.ts';

/**
 * Anything Kysely can compile: query builders, and raw `sql` templates via `.compile(db)`. `O` is
 * the row type Kysely gives the statement (a builder's selection, or `sql<O>`), carried on to the
 * bound statement so that `rows`/`first` (program.ts) return it without a hand-written type.
 */
export interface Compilable<O = unknown> {
  compile(): CompiledQuery<O>;
}

/** Where a template's value goes: `param('name')` (see `template`). */
export type Param<P> = <K extends keyof P & string>(name: K) => P[K];

/** A query built and compiled per call (its SQL text may vary, e.g. multi-row inserts). */
export function bound<O>(query: Compilable<O>): BoundQuery<O> {
  const compiled = query.compile();
  return { sql: compiled.sql, parameters: compiled.parameters };
}

/** A raw `sql` template bound for the engine `db` belongs to. */
export function compiled<O, DB>(statement: RawBuilder<O>, db: Kysely<DB>): BoundQuery<O> {
  const { sql: text, parameters } = statement.compile(db);
  return { sql: text, parameters };
}

const SENTINEL = '\u0000chorus-param:';

type Slot = { readonly name: string } | { readonly value: unknown };

/**
 * A statement compiled once and bound per call, for the hot path: Kysely's builder and compiler
 * run at construction, not per lookup. `param(name)` marks where a value goes; it returns a
 * sentinel that is recognised in the compiled parameter list and replaced at bind time. The
 * parameters' type comes from the annotation of `param` (`(p: Param<{ id: number }>) => …`), the
 * row type from the statement built.
 */
export function template<P extends object, O>(build: (param: Param<P>) => Compilable<O>): (params: P) => BoundQuery<O> {
  // The sentinel string stands in for a value of whatever type the statement expects there; it
  // never reaches the database (bind time replaces it), so its type is deliberately left open.
  const compiled = build((name) => `${SENTINEL}${name}` as never).compile();
  const slots: Slot[] = compiled.parameters.map((value) =>
    typeof value === 'string' && value.startsWith(SENTINEL) ? { name: value.slice(SENTINEL.length) } : { value },
  );
  const sql = compiled.sql;
  return (params) => ({
    sql,
    prepared: true,
    parameters: slots.map((slot) => ('name' in slot ? Reflect.get(params, slot.name) : slot.value)),
  });
}
