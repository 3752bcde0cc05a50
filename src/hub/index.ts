/** Public surface of the community hub (`chorus hub`). */
export { startHub, type RunningHub, type StartHubOptions } from './start.ts';
export type { HubSettings } from './settings.ts';
