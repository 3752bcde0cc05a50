/** Which SQL engine a store runs on. */
export type EngineKind = 'sqlite' | 'postgres';

/** A database URL selects PostgreSQL; the empty URL selects SQLite (a file under the data folder). */
export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}
