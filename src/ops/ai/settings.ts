/** The configuration as the AI extension reads and syncs it (ConfigStore satisfies this). */
import type { ConfigChange, ConfigSnapshot } from '../../config/index.ts';

export interface AiSettings {
  current(): ConfigSnapshot;
  /** Validates, writes the console settings file and reloads. */
  saveConsoleSettings(values: Readonly<Record<string, unknown>>): Promise<ConfigChange | null>;
}
