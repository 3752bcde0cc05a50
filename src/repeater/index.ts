/** Public surface of the repeater: the composition root imports from here. */
export { BAN_LATEST_PHRASE, BAN_WORD } from './ban-command.ts';
export type { BanOutcome } from './ban-flow.ts';
export { BanManager, type BanResult } from './bans.ts';
export { jiebaTagger, KeywordExtractor, type Tagger } from './keywords.ts';
export { RepeaterMaintenance, type MaintenanceReport, type Schedule } from './maintenance.ts';
export { NO_CONTROLS, type ChatControls } from './group-controls.ts';
export { claimKey, type ClaimVerdict } from './fleet-claim.ts';
export { seededRandom, systemRandom, type RandomSource } from './random.ts';
export {
  Repeater,
  type AccountSettings,
  type AnswerSent,
  type DecisionOutcome,
  type DecisionReason,
  type LearningSink,
  type RepeaterDecision,
  type RepeaterOptions,
  type ReplyCorpus,
} from './repeater.ts';
export { DEFAULT_REPEATER_SETTINGS, fromRepeaterConfig, repeaterSettings, type RepeaterSettings } from './settings.ts';
export {
  ACTIVITY_DEFAULTS,
  ChatActivity,
  LATENCY_BUCKETS_MS,
  latencyPercentile,
  type HourStats,
  type MinuteCounts,
} from './activity.ts';
export { DECISION_RING_DEFAULTS, DecisionRing, type KeptDecision } from './decision-ring.ts';
export {
  DECISION_REASONS,
  explainDecision,
  judgeAnswers,
  type AnswerJudgement,
  type AnswerVerdict,
  type AnswerView,
} from './explain.ts';
export { HistoryLearner, type HistoryLearnDeps, type HistoryOutcome } from './history-learn.ts';
export { seedHistory, type SeedCounts, type SeedProgress, type SeedResult } from './history-seed.ts';
export { HISTORY_SEED } from './limits.ts';
