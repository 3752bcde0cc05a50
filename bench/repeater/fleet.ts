/**
 * One fleet run: the conversation sent at a fixed rate to every process of a fleet
 * (bench/repeater/fleet-children.ts), everything measured from the processes' own
 * GET /api/metrics (scraped before and after, the difference is the run) and from /proc: decision
 * latency and learn lag histograms, pairs learned, learning skipped under pressure, CPU seconds of
 * the Chorus processes and of their PostgreSQL backends.
 */
import { backendPids, createScratchSchema, type ScratchSchema } from '../lib/postgres-schema.ts';
import { cpuBetween, cpuOf } from '../lib/cpu.ts';
import { histogramDelta, histogramSum, type Histogram, type Scrape } from '../lib/prom.ts';
import { Conversation } from './conversation.ts';
import { ACCOUNT_GROUPS, GROUPS, startFleet, type Fleet, type FleetMember } from './fleet-children.ts';
import { sendPaced } from './pace.ts';

const WARM_GROUP = 899_999;
const MEMBERS_PER_GROUP = 40;
const TICK_MS = 5;
const POLL_MS = 250;

export type Engine = 'sqlite' | 'postgres';

export interface FleetRunOptions {
  engine: Engine;
  processes: number;
  rate: number;
  seconds: number;
  seed: number;
  /** The PostgreSQL database the scratch schema goes into. */
  databaseUrl: string;
  /** How long the processes get after the last message to decide and learn everything. */
  drainTimeoutMs: number;
  log: (line: string) => void;
}

export interface ProcessFigures {
  decisions: Histogram;
  learnLag: Histogram;
  learnQueued: number;
  skippedPressure: number;
  droppedFull: number;
  decisionErrors: number;
  lookupsDropped: number;
  chatLogDropped: number;
  eventLoopMaxMs: number;
  cpuSec: number;
  errorLines: number;
  warnLines: number;
}

export interface FleetRunResult {
  engine: Engine;
  processes: number;
  rateOffered: number;
  rateAchieved: number;
  messages: number;
  framesPerProcess: number;
  /** Every process decided every frame and learned everything it queued within the drain timeout. */
  drained: boolean;
  perProcess: ProcessFigures[];
  total: ProcessFigures;
  /** CPU seconds of the PostgreSQL backends serving the fleet (null on SQLite). */
  postgresCpuSec: number | null;
  logMessages: Map<string, number>;
}

interface Reading {
  decisions: Histogram;
  learnLag: Histogram;
  decided: number;
  learnQueued: number;
  learnDone: number;
  queue: number;
  skippedPressure: number;
  droppedFull: number;
  decisionErrors: number;
  lookupsDropped: number;
  chatLogDropped: number;
  loopMaxSec: number;
}

function read(scrape: Scrape): Reading {
  const counter = (part: string, name: string) => scrape.value('chorus_component_counter', { part, name });
  const reason = (name: string) => scrape.value('chorus_decisions_total', { reason: name });
  return {
    decisions: scrape.histogram('chorus_decision_latency_seconds'),
    learnLag: scrape.histogram('chorus_learn_lag_seconds'),
    decided: scrape.value('chorus_decisions_total'),
    learnQueued: counter('learning', 'queued'),
    learnDone: counter('learn_worker', 'handled') + counter('learn_worker', 'failed'),
    queue: scrape.value('chorus_queue_size', { queue: 'learning' }),
    skippedPressure: counter('learning', 'skippedPressure'),
    droppedFull: counter('learning', 'droppedFull'),
    decisionErrors: reason('error'),
    lookupsDropped: reason('pressure') + reason('timeout') + reason('pool-timeout'),
    chatLogDropped: counter('chat_log', 'dropped'),
    loopMaxSec: scrape.value('chorus_nodejs_eventloop_lag_max_seconds'),
  };
}

const readAll = (fleet: Fleet) => Promise.all(fleet.members.map(async (member) => read(await member.scrape())));

/** Sends one message per account outside the measured groups and waits for its decisions. */
async function warmUp(member: FleetMember): Promise<void> {
  for (const [index, peer] of member.peers.entries()) {
    peer.groupMessage({ groupId: WARM_GROUP, userId: 1, text: '预热一下词典', messageId: index + 1, time: index + 1 });
  }
  let decided = 0;
  const deadline = performance.now() + 30_000;
  while (decided < member.peers.length && performance.now() < deadline) {
    decided = read(await member.scrape()).decided;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (decided < member.peers.length) throw new Error(`process ${member.index + 1} did not decide its warm-up`);
}

/** A started fleet that runs one measured load after another on the same processes and database. */
export interface FleetSession {
  run(load: FleetLoad): Promise<FleetRunResult>;
  /** Waits until every process's learning queue is empty; false if not within `timeoutMs`. */
  settle(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

export type FleetSessionOptions = Pick<FleetRunOptions, 'engine' | 'processes' | 'seed' | 'databaseUrl' | 'log'> & {
  /** Messages the session may send in all (message times are spread back from now to fit them). */
  messageBudget: number;
};
export type FleetLoad = Pick<FleetRunOptions, 'rate' | 'seconds' | 'drainTimeoutMs'>;

export async function openFleet(options: FleetSessionOptions): Promise<FleetSession> {
  if (options.engine === 'sqlite' && options.processes !== 1) {
    throw new Error('SQLite serves one process: --processes must be 1 with --engine sqlite');
  }
  const schema: ScratchSchema | null =
    options.engine === 'postgres' ? await createScratchSchema(options.databaseUrl, 'chorus_bench_fleet') : null;
  let fleet: Fleet | undefined;
  const close = async () => {
    process.removeListener('SIGINT', onInterrupt);
    await fleet?.stop();
    await schema?.drop();
  };
  const onInterrupt = () => void close().finally(() => process.exit(130));
  process.once('SIGINT', onInterrupt);
  try {
    fleet = await startFleet({ processes: options.processes, databaseUrl: schema?.url ?? null, log: options.log });
    for (const member of fleet.members) await warmUp(member);
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
  const started = fleet;
  // One conversation for the whole session: message ids and times never repeat across runs.
  const conversation = new Conversation({
    seed: options.seed,
    groupIds: GROUPS,
    membersPerGroup: MEMBERS_PER_GROUP,
    firstTime: Math.floor(Date.now() / 1000) - options.messageBudget - 60,
    botName: 'chorus',
  });
  return {
    run: (load) => measure(started, schema, conversation, { ...options, ...load }),
    async settle(timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        const readings = await readAll(started);
        if (readings.every((reading) => reading.queue === 0 && reading.learnDone >= reading.learnQueued)) return true;
        if (performance.now() > deadline) return false;
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
    close,
  };
}

/** One fleet, one run. */
export async function runFleet(options: FleetRunOptions): Promise<FleetRunResult> {
  const session = await openFleet({ ...options, messageBudget: Math.round(options.rate * options.seconds) });
  try {
    return await session.run(options);
  } finally {
    await session.close();
  }
}

async function measure(
  fleet: Fleet,
  schema: ScratchSchema | null,
  conversation: Conversation,
  options: FleetRunOptions,
): Promise<FleetRunResult> {
  const pids = fleet.members.map((member) => member.child.process.pid ?? 0);
  const backends = async () => (schema ? backendPids(options.databaseUrl, schema.name) : []);
  const before = await readAll(fleet);
  const logsBefore = fleet.members.map((member) => ({ errors: member.logs.errors, warnings: member.logs.warnings }));
  const cpuBefore = cpuOf(pids);
  const backendsBefore = cpuOf(await backends());
  let framesPerProcess = 0;
  const paced = await sendPaced({
    rate: options.rate,
    seconds: options.seconds,
    tickMs: TICK_MS,
    send: () => {
      const line = conversation.next();
      for (const [account, groups] of ACCOUNT_GROUPS.entries()) {
        if (!groups.has(line.groupId)) continue;
        framesPerProcess++;
        for (const member of fleet.members) {
          member.peers[account]?.groupMessage({
            groupId: line.groupId,
            userId: line.userId,
            message: line.message,
            messageId: line.messageId,
            time: line.time,
          });
        }
      }
    },
  });
  for (const member of fleet.members) for (const peer of member.peers) await peer.flush();

  // Poll until every process decided every frame and wrote what it queued; the event-loop
  // maximum is reset by each scrape, so the largest over the polls covers the whole run.
  let after = await readAll(fleet);
  const loopMax = after.map((reading) => reading.loopMaxSec);
  const done = () =>
    after.every(
      (reading, index) =>
        reading.decided - (before[index]?.decided ?? 0) >= framesPerProcess &&
        reading.queue === 0 &&
        reading.learnDone >= reading.learnQueued,
    );
  const deadline = performance.now() + options.drainTimeoutMs;
  while (!done() && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    after = await readAll(fleet);
    after.forEach((reading, index) => (loopMax[index] = Math.max(loopMax[index] ?? 0, reading.loopMaxSec)));
  }
  const drained = done();
  const cpuAfter = cpuOf(pids);
  const backendsAfter = cpuOf(await backends());

  const perProcess = after.map((reading, index): ProcessFigures => {
    const start = before[index] as Reading;
    const member = fleet.members[index] as FleetMember;
    const pid = pids[index] ?? 0;
    return {
      decisions: histogramDelta(start.decisions, reading.decisions),
      learnLag: histogramDelta(start.learnLag, reading.learnLag),
      learnQueued: reading.learnQueued - start.learnQueued,
      skippedPressure: reading.skippedPressure - start.skippedPressure,
      droppedFull: reading.droppedFull - start.droppedFull,
      decisionErrors: reading.decisionErrors - start.decisionErrors,
      lookupsDropped: reading.lookupsDropped - start.lookupsDropped,
      chatLogDropped: reading.chatLogDropped - start.chatLogDropped,
      eventLoopMaxMs: (loopMax[index] ?? 0) * 1000,
      cpuSec: (cpuAfter.get(pid) ?? Number.NaN) - (cpuBefore.get(pid) ?? Number.NaN),
      errorLines: member.logs.errors - (logsBefore[index]?.errors ?? 0),
      warnLines: member.logs.warnings - (logsBefore[index]?.warnings ?? 0),
    };
  });
  const sum = (pick: (figures: ProcessFigures) => number) => perProcess.reduce((s, figures) => s + pick(figures), 0);
  const logMessages = new Map<string, number>();
  for (const member of fleet.members) {
    for (const [message, n] of member.logs.messages) logMessages.set(message, (logMessages.get(message) ?? 0) + n);
  }
  return {
    engine: options.engine,
    processes: options.processes,
    rateOffered: options.rate,
    rateAchieved: paced.elapsedMs > 0 ? ((paced.sent - 1) / paced.elapsedMs) * 1000 : Number.NaN,
    messages: paced.sent,
    framesPerProcess,
    drained,
    perProcess,
    total: {
      decisions: histogramSum(perProcess.map((figures) => figures.decisions)),
      learnLag: histogramSum(perProcess.map((figures) => figures.learnLag)),
      learnQueued: sum((f) => f.learnQueued),
      skippedPressure: sum((f) => f.skippedPressure),
      droppedFull: sum((f) => f.droppedFull),
      decisionErrors: sum((f) => f.decisionErrors),
      lookupsDropped: sum((f) => f.lookupsDropped),
      chatLogDropped: sum((f) => f.chatLogDropped),
      eventLoopMaxMs: Math.max(...perProcess.map((f) => f.eventLoopMaxMs)),
      cpuSec: sum((f) => f.cpuSec),
      errorLines: sum((f) => f.errorLines),
      warnLines: sum((f) => f.warnLines),
    },
    postgresCpuSec: schema ? cpuBetween(backendsBefore, backendsAfter) : null,
    logMessages,
  };
}
