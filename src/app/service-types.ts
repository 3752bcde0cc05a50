/** What `startService` takes and what it gives back (src/app/service.ts). */
import type { FastifyInstance } from 'fastify';
import type { ConfigStore } from '../config/index.ts';
import type { RandomSource, RepeaterDecision } from '../repeater/index.ts';
import type { LocalStore } from '../store/open-store.ts';
import type { AgentMemoryWiring } from './agent-memory-wiring.ts';
import type { AgentTasksWiring } from './agent-tasks-wiring.ts';
import type { AiWiringOverrides } from './ai-wiring.ts';
import type { ChatWiring } from './chat-wiring.ts';
import type { CorpusWiring } from './corpus-wiring.ts';
import type { Logger } from './logger.ts';
import type { UpdateWiringOverrides } from './update-wiring.ts';

export interface ServiceOptions {
  /** The process environment (the only place it is read is the command line). */
  env: Record<string, string | undefined>;
  projectDir?: string;
  /** Overrides the configured log level (command line flag). */
  logLevel?: string;
  logDestination?: NodeJS.WritableStream;
  /** Told every reply decision (the demo prints them, the benchmark measures them). */
  onDecision?: (decision: RepeaterDecision) => void;
  /** Told each learning lag, enqueue to written, in ms (the benchmark measures it). */
  onLearned?: (lagMs: number) => void;
  /** The built web console to serve; default web/dist of this checkout (tests build their own). */
  webRoot?: string;
  /** A seeded random source for the repeater (reproducible demo runs). */
  random?: RandomSource;
  /** Stop and start again (the command line provides it; a SQLite restore needs it). */
  restart?: () => void;
  /** Release folder, versions and timings of the update domain (tests). */
  update?: UpdateWiringOverrides;
  /** Asks the supervisor (`chorus serve`) to restart this process; absent when nothing supervises it. */
  requestRestart?: (container: boolean) => boolean;
  /** Folders and timings of the AI extension (the browser suite shortens its update check). */
  ai?: AiWiringOverrides;
}

export interface RunningService {
  readonly config: ConfigStore;
  readonly store: LocalStore;
  readonly corpus: CorpusWiring;
  readonly chat: ChatWiring;
  /** The agent's tools and reminder tasks (docs/agent-tasks.md). */
  readonly agentTasks: AgentTasksWiring;
  /** The member memory and its background worker (docs/agent-memory.md): tests run a round at once. */
  readonly agentMemory: Pick<AgentMemoryWiring, 'memory' | 'worker'>;
  readonly server: FastifyInstance;
  readonly logger: Logger;
  /** Where the console listens, e.g. http://127.0.0.1:8088/chorus/ */
  readonly consoleUrl: string;
  /** Stops everything in reverse order of start; resolves within `deadlineMs` or rejects naming what did not stop. */
  stop(deadlineMs?: number): Promise<void>;
}
