/** The community side's fixed limits, with units in their names (docs/rules.md#style-limits). */

/** Usage requests are short (docs/rules.md#usage). */
export const USAGE_TIMEOUT_MS = 3000;
/** A shard worker re-reads the state file this often, to pick up its primary's enrollment. */
export const WORKER_STATE_REFRESH_MS = 30_000;
/** ...and after a refused token, at most this often. */
export const WORKER_AUTH_RELOAD_MS = 5000;
