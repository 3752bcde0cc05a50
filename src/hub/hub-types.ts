/** What the hub store takes and gives (hub-store.ts). */
import type { AnswerInput } from './merge.ts';

export interface Policy {
  read: boolean;
  contribute: boolean;
  /** 0 = no limit. */
  readPerMinute: number;
  /** 0 = no limit. */
  contributionsPerDay: number;
}

export interface Deployment {
  deploymentId: string;
  policy: Policy;
  expiresAt: number | null;
  /** Blocked by the hub's operator: its token is refused (403). */
  blocked: boolean;
}

/** The serving rule (docs/hub.md#agreement), from the `hub` config section. */
export interface Agreement {
  /** Cohorts that must have contributed an answer before it is served; 1 = off. */
  minDeployments: number;
  /** Most one cohort adds to a served count; 0 = no cap. */
  countPerDeploymentMax: number;
}

export interface StoredContextAnswer {
  /** Raw, as contributed (the caller cleans for the wire). */
  keywords: string;
  count: number;
  time: number;
  messages: string[];
}

export interface StoredContext {
  keywords: string;
  time: number;
  triggerCount: number;
  answers: StoredContextAnswer[];
}

export interface Usage {
  readLookups: number;
  readHits: number;
  contributeOk: number;
  updatedAt: number | null;
}

/** Requests counted so far in the current rate window. */
export interface Counted {
  count: number;
}

export type Contribution =
  | {
      op: 'upsert_answer';
      keywords: string;
      hash: string;
      answerKeywords: string;
      answerHash: string;
      time: number;
      /** Cleaned; null when none was given or nothing was left after cleaning. */
      message: string | null;
      appendOnExisting: boolean;
    }
  | { op: 'insert'; keywords: string; hash: string; time: number; answers: AnswerInput[] };

export interface HotItemInput {
  keywords: string;
  hash: string;
  score: number;
}

export interface HotCandidate {
  keywords: string;
  score: number;
  /** Top answers, best first (empty in fleet mode). */
  answers: { keywords: string; count: number; messages: string[] }[];
}

export interface HeartbeatInput {
  deploymentId: string;
  version: string;
  onlineBots: number;
  catalogBots: number;
  sharded: boolean;
  shardWorkers: number | null;
}

/** `retryAt`: unix second from which the refused request would be accepted. */
export type Gate = { ok: true } | { ok: false; retryAt: number };
