/**
 * The console's pages: each entry is both a route and a menu item, so adding a page is one page
 * file plus one entry here (web/README.md). `path` is relative to the base ('' is the overview).
 */
import type { Component } from 'vue';

export interface PageEntry {
  /** Route name, also the i18n key `nav.<name>`. */
  name: string;
  path: string;
  component: () => Promise<{ default: Component }>;
}

export const PAGES: readonly PageEntry[] = [
  { name: 'overview', path: '', component: () => import('./OverviewPage.vue') },
  { name: 'groups', path: 'groups', component: () => import('./GroupsPage.vue') },
  { name: 'why', path: 'why', component: () => import('./WhyPage.vue') },
  { name: 'logs', path: 'logs', component: () => import('./LogsPage.vue') },
  { name: 'corpus', path: 'corpus', component: () => import('./CorpusPage.vue') },
  { name: 'activity', path: 'activity', component: () => import('./ActivityPage.vue') },
  { name: 'community', path: 'community', component: () => import('./CommunityPage.vue') },
  { name: 'bots', path: 'bots', component: () => import('./BotsPage.vue') },
  { name: 'database', path: 'database', component: () => import('./DatabasePage.vue') },
  { name: 'settings', path: 'settings', component: () => import('./SettingsPage.vue') },
  { name: 'updates', path: 'updates', component: () => import('./UpdatesPage.vue') },
  { name: 'agent', path: 'agent', component: () => import('./AgentPage.vue') },
  { name: 'ai', path: 'ai-extension', component: () => import('./AiExtensionPage.vue') },
];
