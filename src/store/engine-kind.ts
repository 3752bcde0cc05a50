/** Which SQL engine a store runs on. */
export type EngineKind = 'sqlite' | 'postgres';
