import type { RepeaterConfig } from '../config/index.ts';

/** A delay drawn uniformly from [minMs, maxMs]. */
export interface DelayRange {
  readonly minMs: number;
  readonly maxMs: number;
}

/**
 * The repeater's tunables as plain values (docs/rules.md#style-ctor: constructors take values, not the
 * configuration store). `fromRepeaterConfig` derives them from the `repeater` config section;
 * tests build them with `repeaterSettings({...})`.
 */
export interface RepeaterSettings {
  /** Lower-cased names that address the bot at the start of a message. */
  readonly nicknames: readonly string[];
  /** Never learned from, never counted as human repeats (besides the connected bot accounts). */
  readonly ignoreUserIds: ReadonlySet<number>;
  readonly answerThreshold: number;
  /** Weights of the thresholds [T - n + 1 .. T], lowest first (docs/rules.md#rep-reply). */
  readonly answerThresholdWeights: readonly number[];
  readonly crossGroupThreshold: number;
  /** Identical human messages in a row that are echoed once; below 2 disables (docs/rules.md#rep-reply). */
  readonly repeatThreshold: number;
  readonly splitProbability: number;
  readonly cooldownMs: number;
  readonly replyDelay: DelayRange;
  readonly splitDelay: DelayRange;
  /** 0 = unbounded. */
  readonly bundleTimeoutMs: number;
  /** 0 disables. */
  readonly bundleCacheMs: number;
  /** 0 disables. */
  readonly bundleNegativeCacheMs: number;
  /** Said after a successful ban; empty says nothing. */
  readonly banAck: string;
  /** Talking first in quiet groups (docs/repeater.md#proactive-speech). */
  readonly proactive: ProactiveSettings;
}

export interface ProactiveSettings {
  /** The default of groups without their own switch. */
  readonly enabled: boolean;
  /** Quiet after average interval × factor + floor. */
  readonly factor: number;
  readonly floorMs: number;
  /** How often quiet groups are looked for. */
  readonly checkMs: number;
  /** Chance of a poke after a proactive line (0: never). */
  readonly pokeProbability: number;
}

export const DEFAULT_REPEATER_SETTINGS: RepeaterSettings = Object.freeze({
  nicknames: Object.freeze(['chorus']),
  ignoreUserIds: new Set<number>(),
  answerThreshold: 3,
  answerThresholdWeights: Object.freeze([7, 23, 70]),
  crossGroupThreshold: 2,
  repeatThreshold: 3,
  splitProbability: 0.5,
  cooldownMs: 5000,
  replyDelay: Object.freeze({ minMs: 2000, maxMs: 5000 }),
  splitDelay: Object.freeze({ minMs: 1000, maxMs: 3000 }),
  bundleTimeoutMs: 800,
  bundleCacheMs: 8000,
  bundleNegativeCacheMs: 20_000,
  banAck: '好的，以后不说这句了。',
  proactive: Object.freeze({ enabled: false, factor: 5, floorMs: 600_000, checkMs: 60_000, pokeProbability: 0 }),
});

/** Defaults with some values replaced (nicknames are lower-cased). */
export function repeaterSettings(overrides: Partial<RepeaterSettings> = {}): RepeaterSettings {
  const merged = { ...DEFAULT_REPEATER_SETTINGS, ...overrides };
  return Object.freeze({ ...merged, nicknames: normaliseNicknames(merged.nicknames) });
}

export function fromRepeaterConfig(config: RepeaterConfig): RepeaterSettings {
  return repeaterSettings({
    nicknames: config.nicknames,
    ignoreUserIds: new Set(config.ignoreUserIds.map(Number)),
    answerThreshold: config.answerThreshold,
    answerThresholdWeights: config.answerThresholdWeights.split(',').map(Number),
    crossGroupThreshold: config.crossGroupThreshold,
    repeatThreshold: config.repeatThreshold,
    splitProbability: config.splitProbability,
    cooldownMs: config.cooldownSec * 1000,
    replyDelay: rangeMs(config.replyDelaySec),
    splitDelay: rangeMs(config.splitDelaySec),
    bundleTimeoutMs: config.bundleTimeoutSec * 1000,
    bundleCacheMs: config.bundleCacheSec * 1000,
    bundleNegativeCacheMs: config.bundleNegativeCacheSec * 1000,
    banAck: config.banAck.trim(),
    proactive: {
      enabled: config.proactiveEnabled,
      factor: config.proactiveFactor,
      floorMs: config.proactiveFloorSec * 1000,
      checkMs: config.proactiveCheckSec * 1000,
      pokeProbability: config.proactivePokeProbability,
    },
  });
}

/** `2-5` (canonical text of the config field) → {2000, 5000}. */
function rangeMs(text: string): DelayRange {
  const [min = 0, max = min] = text.split('-').map(Number);
  return { minMs: min * 1000, maxMs: max * 1000 };
}

function normaliseNicknames(names: readonly string[]): readonly string[] {
  return Object.freeze(names.map((name) => name.trim().toLowerCase()).filter((name) => name !== ''));
}
