import { configFromValues, type HubConfig } from '../config/index.ts';

/** What the running hub needs from the `hub` config section besides where to listen and store. */
export type HubSettings = Omit<HubConfig, 'host' | 'port' | 'dataDir' | 'databaseUrl' | 'databasePoolMax'>;

/** The declared defaults of the `hub` section (one source of truth for the in-process starter). */
export function hubDefaults(): HubConfig {
  return configFromValues().hub;
}
