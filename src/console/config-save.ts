/**
 * Saving a config page: check the patch against the page (400 naming the field, nothing saved),
 * write and reload through the config store, then collect the ordered reactions (see
 * corpus-control.ts). The returned steps start with `write_settings` and `reload_config`.
 */
import {
  ConfigFileError,
  ConfigValidationError,
  SECTIONS,
  type ConfigChange,
  type ConfigKey,
  type ConfigSnapshot,
} from '../config/index.ts';
import { nameOnPage, patchToSettings, type ConfigPage } from './config-pages.ts';
import { SaveReactions, type StepReport } from './corpus-control.ts';
import type { ChangeReactions, SettingsStore } from './deps.ts';
import { badRequest, conflict } from './errors.ts';
import { errorMessage } from '../shared/errors.ts';

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
      ...SaveReactions.unchanged(),
    ];
  }
  const previous = settings.current();
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
      throw badRequest(`values.${nameOnPage(page, error.field)}: ${problem}`);
    }
    if (settings.current() === previous) {
      // Refused before anything was written (a project file does not parse): say which file.
      if (error instanceof ConfigFileError) throw conflict(`settings not saved: ${error.message}`);
      throw error;
    }
    // Written and reloaded, but a config/changed listener threw: report it and still run the steps.
    const detail = errorMessage(error);
    steps.push(
      { step: 'write_settings', ok: true },
      { step: 'reload_config', ok: false, detail: `a configuration listener failed: ${detail}` },
    );
    change = changeBetween(previous, settings.current());
  }
  steps.push(...(change === null ? SaveReactions.unchanged() : await reactions.handle(change)));
  return steps;
}

function changeBetween(previous: ConfigSnapshot, current: ConfigSnapshot): ConfigChange | null {
  const changedKeys: ConfigKey[] = [];
  for (const section of SECTIONS) {
    for (const field of section.fields) {
      const key = field.env as ConfigKey;
      const a: unknown = previous.raw(key);
      const b: unknown = current.raw(key);
      const same = Array.isArray(a) && Array.isArray(b) ? a.join('\0') === b.join('\0') : Object.is(a, b);
      if (!same) changedKeys.push(key);
    }
  }
  return changedKeys.length === 0 ? null : { previous, current, changedKeys };
}
