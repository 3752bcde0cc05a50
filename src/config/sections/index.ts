/**
 * Every configuration section, in display order. Adding a section is one file plus one line
 * here: the snapshot type, the key union and the console forms all derive from this list.
 */
import type { Field, FieldValue } from '../field.ts';
import type { Section, SectionValues } from '../section.ts';
import { agentCatchphrasesSection } from './agent-catchphrases.ts';
import { aiSection } from './ai.ts';
import { backfillSection } from './backfill.ts';
import { cleanupSection } from './cleanup.ts';
import { communityStatsSection } from './community-stats.ts';
import { consoleSection } from './console.ts';
import { corpusSection } from './corpus.ts';
import { deploymentSection } from './deployment.ts';
import { guardSection } from './guard.ts';
import { hubSection } from './hub.ts';
import { llmSection } from './llm.ts';
import { milkySection } from './milky.ts';
import { onebotSection } from './onebot.ts';
import { performanceSection } from './performance.ts';
import { remoteSection } from './remote.ts';
import { repeaterSection } from './repeater.ts';
import { serverSection } from './server.ts';

export const SECTIONS = Object.freeze([
  serverSection,
  corpusSection,
  performanceSection,
  remoteSection,
  backfillSection,
  guardSection,
  cleanupSection,
  consoleSection,
  repeaterSection,
  onebotSection,
  milkySection,
  communityStatsSection,
  hubSection,
  deploymentSection,
  aiSection,
  agentCatchphrasesSection,
  llmSection,
] as const);

export type AnySection = (typeof SECTIONS)[number];
export type SectionId = AnySection['id'];

/** One typed value object per section, keyed by section id. */
export type ConfigSections = { readonly [S in AnySection as S['id']]: SectionValues<S> };

type AnyField = AnySection['fields'][number];
/** Every env key the configuration knows. */
export type ConfigKey = AnyField['env'];
/** The resolved value type of one env key. */
export type ConfigValue<K extends ConfigKey> = FieldValue<Extract<AnyField, Field<unknown, K>>>;

export type { AgentCatchphrasesConfig } from './agent-catchphrases.ts';
export type { AiConfig } from './ai.ts';
export { checkAiHost, checkRepoUrl, DEFAULT_AI_REPO_URL } from './ai.ts';
export type { BackfillConfig } from './backfill.ts';
export type { CleanupConfig } from './cleanup.ts';
export type { CommunityStatsConfig } from './community-stats.ts';
export { checkHubEndpoint } from './community-stats.ts';
export type { ConsoleConfig } from './console.ts';
export type { CorpusConfig, CorpusSourceName, RemoteFindMode } from './corpus.ts';
export type { DeploymentConfig } from './deployment.ts';
export { DEPLOYMENT_KINDS } from './deployment.ts';
export type { GuardConfig } from './guard.ts';
export type { HubConfig } from './hub.ts';
export type { LlmConfig } from './llm.ts';
export { checkModelBaseUrl } from './llm.ts';
export type { MilkyConfig } from './milky.ts';
export type { OnebotConfig } from './onebot.ts';
export { checkForwardUrl } from './onebot.ts';
export type { PerformanceConfig } from './performance.ts';
export type { RemoteBudgetConfig } from './remote.ts';
export type { RepeaterConfig } from './repeater.ts';
export { parseSecondsRange, parseThresholdWeights } from './repeater.ts';
export type { ServerConfig } from './server.ts';
export {
  agentCatchphrasesSection,
  aiSection,
  backfillSection,
  cleanupSection,
  communityStatsSection,
  consoleSection,
  corpusSection,
  deploymentSection,
  guardSection,
  hubSection,
  llmSection,
  milkySection,
  onebotSection,
  performanceSection,
  remoteSection,
  repeaterSection,
  serverSection,
};
export type { Section };
