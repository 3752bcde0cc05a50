export {
  AI_INSTALL_JOB,
  AiExtension,
  InstallRefused,
  type AiExtensionOptions,
  type InstallRequest,
  type SavedConfig,
} from './ai-extension.ts';
export { AI_CONFIG_FIELDS, defaultAiConfig, normaliseAiConfig, type AiExtensionConfig } from './config-file.ts';
export { TOKEN_SOURCES as AI_TOKEN_SOURCES, type ConfigInput, type PublicAiConfig } from './config-sync.ts';
export { INSTALL_ACTIONS, type InstallAction, type InstallStatus } from './install-status.ts';
export { AI_CONFIG_BOUNDS, DEFAULT_AI_TIMING, LOG_LINES, type AiTiming } from './limits.ts';
export { LOG_KINDS, PATH_REFUSED, type LogKind } from './log-files.ts';
export { LOG_ERROR_CODES, TOKEN_REFUSED_HINT, type LogStreamPlan, type LogTail } from './logs.ts';
export type { NcmReply } from './ncm.ts';
export type { ProbeResult } from './probe.ts';
export type { AiSettings } from './settings.ts';
