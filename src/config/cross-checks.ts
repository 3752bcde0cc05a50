/**
 * Rules that span keys, checked when the console saves settings (after each value passed its own
 * field check, before anything is written). A broken rule is a ConfigValidationError naming the
 * key that was offered.
 */
import { ConfigCredentialError, ConfigValidationError } from './errors.ts';
import type { Layer } from './layer.ts';
import type { Resolution } from './resolve.ts';
import type { ConfigSnapshot } from './snapshot.ts';

const READ = 'CHORUS_CONSOLE_TOKEN';
const WRITE = 'CHORUS_CONSOLE_WRITE_TOKEN';

/** `accepted`: canonical values by upper-case key, null meaning "remove this setting". */
export function checkAcrossKeys(accepted: ReadonlyMap<string, unknown>, current: ConfigSnapshot): void {
  if (!accepted.has(READ) && !accepted.has(WRITE)) return;
  const offered = (key: string, fallback: string): string => {
    const value = accepted.get(key);
    return accepted.has(key) ? (typeof value === 'string' ? value : '') : fallback;
  };
  const read = offered(READ, current.console.token);
  const write = offered(WRITE, current.console.writeToken);
  if (read !== '' && read === write) {
    // Equal tokens would make the read token a write token without saying so.
    const key = accepted.has(WRITE) ? WRITE : READ;
    throw new ConfigValidationError(key, `${key}: must differ from the other console token`);
  }
}

/**
 * The same rule when the files and the environment are read: a write token equal to the read
 * token stops the start (docs/rules.md#cfg-credentials), naming where the write token was set.
 */
export function checkCredentialsOnLoad(resolution: Resolution, layers: readonly Layer[]): void {
  const read = resolution.values.get(READ);
  const write = resolution.values.get(WRITE);
  if (write === '' || write !== read) return;
  const source = resolution.sources.get(WRITE);
  const where = layers.find((layer) => layer.source === source)?.entries.get(WRITE)?.where ?? String(source);
  throw new ConfigCredentialError(where, WRITE, 'must differ from CHORUS_CONSOLE_TOKEN');
}
