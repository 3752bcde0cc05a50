/**
 * Chorus's feature modules as the console shows them ("plugins"). A plugin with a config page is
 * configurable through GET/PUT /api/plugins/{name}/config; whether it runs in this process is
 * told by the composition root.
 */
import {
  COMMUNITY_STATS_PAGE,
  CONSOLE_PAGE,
  CORPUS_FEDERATION_PAGE,
  ONEBOT_PAGE,
  REPEATER_PAGE,
  type ConfigPage,
} from './config-pages.ts';

export const PLUGIN_NAMES = ['core', 'repeater', 'onebot', 'console', 'community_stats'] as const;
export type PluginName = (typeof PLUGIN_NAMES)[number];

export interface Plugin {
  readonly name: PluginName;
  readonly title: string;
  readonly description: string;
  readonly page: ConfigPage | null;
}

export const PLUGINS: readonly Plugin[] = [
  {
    name: 'core',
    title: 'Core corpus',
    description: 'The reply corpus: local store, composite lookups and the community shared reply library.',
    page: CORPUS_FEDERATION_PAGE,
  },
  {
    name: 'repeater',
    title: 'Repeater',
    description: 'Learns which replies follow which phrases in groups and answers from the corpus.',
    page: REPEATER_PAGE,
  },
  {
    name: 'onebot',
    title: 'OneBot v11',
    description: 'The QQ connection: OneBot v11 reverse WebSocket, events and actions.',
    page: ONEBOT_PAGE,
  },
  {
    name: 'console',
    title: 'Web console',
    description: 'This HTTP API and the web UI: access tokens and login limits.',
    page: CONSOLE_PAGE,
  },
  {
    name: 'community_stats',
    title: 'Community statistics',
    description: 'Heartbeat, enrollment and statistics shared with the community hub.',
    page: COMMUNITY_STATS_PAGE,
  },
];

export function findPlugin(name: string): Plugin | undefined {
  return PLUGINS.find((plugin) => plugin.name === name);
}
