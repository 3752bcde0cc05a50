/**
 * Public surface of the configuration module. Other folders import from here, not from the
 * files behind it.
 */
export { ensurePrivateDir, ensurePrivateDirSync, writeFileAtomic, type WriteAtomicOptions } from './atomic-file.ts';
export {
  ConfigListenerError,
  ConfigStore,
  type ConfigChange,
  type ConfigEvents,
  type ConfigStoreOptions,
} from './config-store.ts';
export { ConfigFileWatch, type ConfigFileWatchOptions } from './file-watch.ts';
export { ConfigCredentialError, ConfigFileError, ConfigValidationError } from './errors.ts';
export { field, type Field, type FieldKind, type FieldValue, type Parsed, type Tristate } from './field.ts';
export { configFromValues } from './from-values.ts';
export { CONFIG_SOURCES, type ConfigSource, type ConfigWarning } from './layer.ts';
export { ENV_FILE, PROJECT_FILE } from './load.ts';
export { defineSection, sectionJsonSchema, type Section, type SectionValues } from './section.ts';
export { CORPUS_SOURCES, normaliseMergeOrder, resolveRemoteFindMode } from './sections/corpus.ts';
export {
  SECTIONS,
  aiSection,
  backfillSection,
  checkAiHost,
  checkRepoUrl,
  checkForwardUrl,
  DEFAULT_AI_REPO_URL,
  DEPLOYMENT_KINDS,
  deploymentSection,
  checkHubEndpoint,
  cleanupSection,
  communityStatsSection,
  consoleSection,
  corpusSection,
  guardSection,
  hubSection,
  milkySection,
  onebotSection,
  performanceSection,
  remoteSection,
  repeaterSection,
  serverSection,
  llmSection,
  checkModelBaseUrl,
  parseSecondsRange,
  parseThresholdWeights,
  type AiConfig,
  type AnySection,
  type BackfillConfig,
  type ConfigKey,
  type ConfigSections,
  type ConfigValue,
  type CorpusConfig,
  type CorpusSourceName,
  type DeploymentConfig,
  type CleanupConfig,
  type CommunityStatsConfig,
  type ConsoleConfig,
  type GuardConfig,
  type HubConfig,
  type LlmConfig,
  type OnebotConfig,
  type PerformanceConfig,
  type RemoteBudgetConfig,
  type RepeaterConfig,
  type RemoteFindMode,
  type SectionId,
  type ServerConfig,
} from './sections/index.ts';
export {
  ConfigReactions,
  concerns,
  REACTION_STEPS,
  SAVE_STEPS,
  type ConfigChangeSource,
  type ConfigReaction,
  type ReactionOutcome,
  type ReactionStep,
  type SaveStep,
  type StepReport,
} from './reactions.ts';
export { SQLITE_FILE_NAME, type ConfigSnapshot, type DatabaseTarget } from './snapshot.ts';
export { CONSOLE_SETTINGS_FILE } from './sources/console-file.ts';
export type { EnvVars } from './sources/env.ts';
