/**
 * Reads every source for one project folder, lowest first: defaults < process environment <
 * chorus.toml < .env < <dataDir>/console-settings.json (docs/rules.md#cfg-order: what an
 * operator saves in the console wins).
 */
import { join, resolve } from 'node:path';
import type { Catalog } from './catalog.ts';
import { checkCredentialsOnLoad } from './cross-checks.ts';
import type { Layer } from './layer.ts';
import { resolveKey, resolveLayers } from './resolve.ts';
import { buildSnapshot, type ConfigSnapshot } from './snapshot.ts';
import { CONSOLE_SETTINGS_FILE, consoleLayer, readConsoleSettings } from './sources/console-file.ts';
import { readDotenvLayer } from './sources/dotenv.ts';
import { envLayer, type EnvVars } from './sources/env.ts';
import { readTomlLayer } from './sources/toml.ts';

export const PROJECT_FILE = 'chorus.toml';
export const ENV_FILE = '.env';

export interface LoadedSources {
  readonly layers: readonly Layer[];
  /** Absolute path of the console settings file (it may not exist yet). */
  readonly consoleFile: string;
  /** The console file's object as stored, unknown keys included. */
  readonly consoleStored: Record<string, unknown>;
}

export async function readSources(catalog: Catalog, projectDir: string, env: EnvVars): Promise<LoadedSources> {
  const root = resolve(projectDir);
  const [toml, dotenv] = await Promise.all([
    readTomlLayer(catalog, join(root, PROJECT_FILE)),
    readDotenvLayer(catalog, join(root, ENV_FILE)),
  ]);
  const below = [envLayer(catalog, env), toml, dotenv];
  // The console file lives in the data folder, so only the sources below it can move that folder.
  const dataEntry = catalog.entries.get('CHORUS_DATA_DIR');
  if (dataEntry === undefined) throw new Error('CHORUS_DATA_DIR is not declared');
  const dataDir = resolve(root, String(resolveKey('CHORUS_DATA_DIR', dataEntry, below).value));
  const consoleFile = join(dataDir, CONSOLE_SETTINGS_FILE);
  const consoleStored = await readConsoleSettings(consoleFile);
  return { layers: [...below, consoleLayer(catalog, consoleFile, consoleStored)], consoleFile, consoleStored };
}

export async function loadSnapshot(catalog: Catalog, projectDir: string, env: EnvVars): Promise<ConfigSnapshot> {
  const { layers } = await readSources(catalog, projectDir, env);
  const resolution = resolveLayers(catalog, layers);
  checkCredentialsOnLoad(resolution, layers);
  return buildSnapshot(catalog, resolution, projectDir);
}
