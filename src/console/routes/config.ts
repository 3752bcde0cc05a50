/**
 * Plugins and their config pages, and the common-config sections. A save validates the whole
 * patch first (400 naming the field, nothing saved), writes the console settings file, reloads,
 * and answers the page as it now is plus the steps the save ran (see config-save.ts).
 */
import Type from 'typebox';
import { COMMON_PAGES, MOVED_SECTIONS, renderPage, type ConfigPage as Page } from '../config-pages.ts';
import { savePage } from '../config-save.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { badRequest, notFound } from '../errors.ts';
import { findPlugin, PLUGINS, type Plugin } from '../plugins.ts';
import { ConfigPage, ConfigPatch, PluginRow, SavedConfigPage } from '../schemas.ts';
import { CACHE_KEYS } from './corpus.ts';
import { recordConsole } from '../activity.ts';

const PluginParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) });
const SectionParams = Type.Object({ section_id: Type.String({ minLength: 1, maxLength: 64 }) });

function pluginPage(plugin: Plugin): Page {
  return plugin.page ?? { id: plugin.name, title: plugin.title, fields: [] };
}

export function configRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;
  const plugin = (name: string): Plugin => {
    const found = findPlugin(name);
    if (found === undefined) throw notFound('no_such_plugin', { name }, `no such plugin: ${name}`);
    return found;
  };
  const section = (id: string): Page => {
    const moved = MOVED_SECTIONS[id];
    if (moved !== undefined) throw badRequest('section_moved', { section: id }, moved);
    const found = COMMON_PAGES.find((page) => page.id === id);
    if (found === undefined) throw notFound('no_such_section', { section: id }, `no such common-config section: ${id}`);
    return found;
  };
  const save = async (
    request: Parameters<typeof recordConsole>[1],
    page: Page,
    values: Record<string, unknown>,
    pluginName: string | null,
  ) => {
    const steps = await savePage(page, values, deps.settings, deps.reactions);
    // Who changed which setting (values left out: some are secrets); a `reset` key lost the
    // console's value, so the file, environment or default applies again.
    const names = Object.keys(values).sort();
    const set = names.filter((name) => values[name] !== null);
    const reset = names.filter((name) => values[name] === null);
    deps.logger.info({ page: page.id, set, reset }, 'console settings saved');
    await recordConsole(deps, request, {
      kind: 'settings_save',
      groupId: null,
      params: {
        section: pluginName ?? page.id,
        keys: names.join(', ').slice(0, 400),
        ...(reset.length > 0 ? { reset: reset.join(', ').slice(0, 400) } : {}),
      },
    });
    // Cached reads that depend on configuration.
    ctx.cache.invalidate(CACHE_KEYS.corpusStatus);
    ctx.cache.invalidate(CACHE_KEYS.communityHot);
    ctx.cache.invalidate(CACHE_KEYS.communityStats);
    return { ...renderPage(page, deps.settings.current(), pluginName), steps };
  };

  api.get(
    '/plugins',
    {
      schema: {
        tags: ['plugins'],
        summary: 'Feature modules and whether they run',
        response: { 200: Type.Array(PluginRow) },
      },
    },
    async () =>
      PLUGINS.map((entry) => ({
        name: entry.name,
        title: entry.title,
        description: entry.description,
        configurable: entry.page !== null,
        enabled: deps.pluginEnabled(entry.name),
      })),
  );

  api.get(
    '/plugins/:name/config',
    {
      schema: {
        tags: ['plugins'],
        summary: "A plugin's settings, rendered from the config schema (core holds corpus_federation)",
        params: PluginParams,
        response: { 200: ConfigPage },
      },
    },
    async (request) => {
      const found = plugin(request.params.name);
      return renderPage(pluginPage(found), deps.settings.current(), found.name);
    },
  );

  api.put(
    '/plugins/:name/config',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['plugins'],
        summary: "Save a plugin's settings and apply them at once",
        params: PluginParams,
        body: ConfigPatch,
        response: { 200: SavedConfigPage },
      },
    },
    async (request) => {
      const found = plugin(request.params.name);
      return save(request, pluginPage(found), request.body.values, found.name);
    },
  );

  api.get(
    '/common-config/sections',
    {
      schema: {
        tags: ['common-config'],
        summary: 'Settings sections not tied to one plugin',
        response: { 200: Type.Array(Type.Object({ id: Type.String(), title: Type.String() })) },
      },
    },
    async () => COMMON_PAGES.map((page) => ({ id: page.id, title: page.title })),
  );

  api.get(
    '/common-config/:section_id',
    {
      schema: {
        tags: ['common-config'],
        summary: 'One common-config section',
        params: SectionParams,
        response: { 200: ConfigPage },
      },
    },
    async (request) => renderPage(section(request.params.section_id), deps.settings.current(), null),
  );

  api.put(
    '/common-config/:section_id',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['common-config'],
        summary: 'Save a common-config section (server and storage changes apply at the next start)',
        params: SectionParams,
        body: ConfigPatch,
        response: { 200: SavedConfigPage },
      },
    },
    async (request) => save(request, section(request.params.section_id), request.body.values, null),
  );
}
