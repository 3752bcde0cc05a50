/**
 * Saving a config page: check the patch against the page (400 naming the field, nothing saved),
 * write and reload through the config store, then report the run of the configuration reactions
 * (src/config/reactions.ts, docs/rules.md#cfg-events) the change set off. The returned steps start
 * with `write_settings` and `reload_config`, then every reaction in order.
 */
import {
  ConfigFileError,
  ConfigListenerError,
  ConfigValidationError,
  type ConfigChange,
  type StepReport,
} from '../config/index.ts';
import { nameOnPage, patchToSettings, type ConfigPage } from './config-pages.ts';
import type { ChangeReactions, SettingsStore } from './deps.ts';
import { badRequest, conflict } from './errors.ts';

export async function savePage(
  page: ConfigPage,
  values: Readonly<Record<string, unknown>>,
  settings: SettingsStore,
  reactions: ChangeReactions,
): Promise<StepReport[]> {
  const patch = patchToSettings(page, values);
  if (Object.keys(patch).length === 0) {
    return [
      { step: 'write_settings', ok: true, skipped: true, detail: 'nothing to write (secrets left unchanged)' },
      { step: 'reload_config', ok: true, skipped: true, detail: 'nothing to write' },
      ...reactions.unchanged(),
    ];
  }
  const steps: StepReport[] = [];
  let change: ConfigChange | null;
  try {
    change = await settings.saveConsoleSettings(patch);
    steps.push(
      { step: 'write_settings', ok: true },
      { step: 'reload_config', ok: true, ...(change === null ? { detail: 'no effective value changed' } : {}) },
    );
  } catch (error) {
    if (error instanceof ConfigValidationError) {
      const problem = error.message.includes(': ')
        ? error.message.slice(error.message.indexOf(': ') + 2)
        : error.message;
      throw badRequest(
        'invalid_setting',
        { field: `body.values.${nameOnPage(page, error.field)}`, setting: error.field, reason: 'invalid' },
        `values.${nameOnPage(page, error.field)}: ${problem}`,
      );
    }
    // Refused before anything was written (a project file does not parse): say which file.
    if (error instanceof ConfigFileError)
      throw conflict('settings_file_broken', {}, `settings not saved: ${error.message}`);
    if (!(error instanceof ConfigListenerError)) throw error;
    // Written and reloaded, but another `config/changed` listener threw: report it; the
    // reactions still ran (every listener runs) and are reported below.
    steps.push({ step: 'write_settings', ok: true }, { step: 'reload_config', ok: false, detail: error.message });
    change = error.change;
  }
  // The `config/changed` event started the run; this is its report, not a second run.
  steps.push(...(change === null ? reactions.unchanged() : await reactions.handle(change)));
  return steps;
}
