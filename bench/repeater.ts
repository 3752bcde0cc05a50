/**
 * bench:repeater — the chat side of `chorus serve` under load: Chorus started with startService on
 * SQLite (a temporary project, logs to a counting null stream), two bot accounts connected over
 * real WebSockets by scripted OneBot peers, twenty groups (four of them shared by both accounts,
 * so their messages arrive twice and are deduplicated), and a synthetic conversation
 * (bench/repeater/conversation.ts) sent at a fixed rate. Cool-down and reply delays are 0, so every
 * decision to reply is a real send back to the peer.
 *
 * Measured: reply-decision latency (RepeaterDecision.latencyMs), learning lag (enqueue to written),
 * what was dropped by design (learning skipped or dropped, chat log, reply lookups skipped or
 * timed out, learn jobs abandoned at stop), errors (decisions ending in `error`, replies the peers
 * never received, actions the peers could not perform, error-level log lines), resident memory of
 * the process (Chorus and the peers) before and after, and the achieved message rate.
 *
 * With --watched it runs twice on fresh services, as is and with a console watcher
 * (bench/repeater/watcher.ts: overview, message stats and decisions read every second, plus a live
 * log stream), and prints both decision p99s and their ratio.
 *
 * --engine postgres runs on PostgreSQL (CHORUS_BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test) in a scratch schema created and dropped by the run.
 * --processes N runs N real `chorus serve` child processes instead (bench/repeater/fleet.ts), each
 * with its own two accounts, the groups shared, measured from their /api/metrics and /proc;
 * CHORUS_BENCH_CHILD_NODE_ARGS passes Node.js flags to them (`--cpu-prof --cpu-prof-dir=DIR` to
 * profile a run).
 *
 * --model turns the language-model path on (docs/agent.md): a stand-in model on 127.0.0.1 answering
 * at once, every group set to answer in place of silence at a 10% rate; the model's own decisions
 * (agent-chat*) are counted by reason but not in the decision latency, which stays the repeater's.
 *
 *   npm run bench:repeater [-- --quick] [--rate 500] [--seconds 60] [--seed N] [--watched] [--model]
 *                          [--engine sqlite|postgres] [--processes N]
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { startService } from '../src/app/service.ts';
import { createScratchSchema, type ScratchSchema } from './lib/postgres-schema.ts';
import { seededRandom, type RepeaterDecision } from '../src/repeater/index.ts';
import { OneBotPeer } from '../test/fixtures/onebot-peer.ts';
import { freePort } from '../test/support/chorus-process.ts';
import { Samples } from './lib/stats.ts';
import { fmt, formatTable } from './lib/table.ts';
import { startModelStandIn } from '../test/support/model-stand-in.ts';
import { parseRepeaterArgs, UsageError, type RepeaterBenchOptions } from './repeater/args.ts';
import { runFleet } from './repeater/fleet.ts';
import { fleetResultLine, formatFleet } from './repeater/fleet-report.ts';
import { Conversation } from './repeater/conversation.ts';
import { sendPaced, until } from './repeater/pace.ts';
import { startWatcher, type Watcher } from './repeater/watcher.ts';

const GROUPS = Array.from({ length: 20 }, (_, index) => 800_001 + index);
/** Account A is in the first twelve groups, B in the last twelve: four groups have both. */
const ACCOUNTS = [
  { selfId: 20_001, groups: new Set(GROUPS.slice(0, 12)), firstMessageId: 1_000_000_000 },
  { selfId: 20_002, groups: new Set(GROUPS.slice(8)), firstMessageId: 1_500_000_000 },
];
const WARM_GROUP = 899_999;
const MEMBERS_PER_GROUP = 40;
const TICK_MS = 5;
const DRAIN_TIMEOUT_MS = 60_000;
const TARGET_DECISION_P99_MS = 5;
const TARGET_LEARN_LAG_P99_MS = 1000;
/** Actions the peer performs; anything else it answers as failed. */
const PEER_ACTIONS = new Set(['send_group_msg', 'get_msg', 'delete_msg', 'get_login_info']);

const mb = (bytes: number): number => bytes / (1024 * 1024);

/** A log destination that keeps nothing but counts lines by pino level. */
class LevelCounter extends Writable {
  readonly levels = new Map<number, number>();
  readonly messages = new Map<string, number>();

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) {
      const level = /"level":(\d+)/.exec(line);
      if (!level) continue;
      const value = Number(level[1]);
      this.levels.set(value, (this.levels.get(value) ?? 0) + 1);
      if (value >= 40) {
        const message = /"msg":"([^"]*)"/.exec(line)?.[1] ?? '?';
        this.messages.set(message, (this.messages.get(message) ?? 0) + 1);
      }
    }
    done();
  }

  atLeast(level: number): number {
    let count = 0;
    for (const [value, lines] of this.levels) if (value >= level) count += lines;
    return count;
  }
}

const CONSOLE_TOKEN = 'chorus-bench-repeater-token-not-secret';

async function main(options: RepeaterBenchOptions, watched = false): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-repeater-'));
  const port = await freePort();
  const total = Math.round(options.rate * options.seconds);
  // At most two deliveries per message (the shared groups).
  const decisionLatency = new Samples(total * ACCOUNTS.length + 1000);
  const lookupLatency = new Samples(total * ACCOUNTS.length + 1000);
  const learnLag = new Samples(total + 1000);
  const reasons = new Map<string, number>();
  let decided = 0;
  let expectedSends = 0;
  let measuring = false;
  const onDecision = (decision: RepeaterDecision) => {
    decided++;
    if (!measuring) return;
    if (decision.reason.startsWith('agent-chat')) {
      reasons.set(decision.reason, (reasons.get(decision.reason) ?? 0) + 1);
      if (decision.outcome === 'replied') expectedSends += decision.texts.length;
      return;
    }
    decisionLatency.add(decision.latencyMs);
    if (decision.cache !== null) lookupLatency.add(decision.latencyMs);
    reasons.set(decision.reason, (reasons.get(decision.reason) ?? 0) + 1);
    if (decision.outcome === 'replied') expectedSends += decision.texts.length;
  };
  const logs = new LevelCounter();
  const schema: ScratchSchema | null =
    options.engine === 'postgres' ? await createScratchSchema(options.databaseUrl, 'chorus_bench_repeater') : null;
  const model = options.model
    ? await startModelStandIn({ text: '好的呀', usage: { prompt: 200, completion: 4 } })
    : null;
  const service = await startService({
    projectDir: dir,
    env: {
      ...(model
        ? {
            CHORUS_LLM_BASE_URL: model.baseUrl,
            CHORUS_LLM_SILENCE_RATE: '0.1',
            CHORUS_LLM_CONCURRENCY: '64',
            CHORUS_LLM_GROUP_DAILY_CALLS: '0',
            CHORUS_LLM_GROUP_DAILY_TOKENS: '0',
            CHORUS_LLM_MEMBER_DAILY_CALLS: '0',
            CHORUS_LLM_MEMBER_DAILY_TOKENS: '0',
          }
        : {}),
      ...(schema ? { CHORUS_DATABASE_URL: schema.url } : {}),
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: CONSOLE_TOKEN,
      CHORUS_REPEATER_COOLDOWN_SEC: '0',
      CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
      CHORUS_REPEATER_SPLIT_DELAY_SEC: '0-0',
    },
    logDestination: logs,
    random: seededRandom(options.seed),
    onDecision,
    onLearned: (lagMs) => {
      if (measuring) learnLag.add(lagMs);
    },
  });
  const url = `ws://127.0.0.1:${port}/onebot/v11/ws`;
  const peers = await Promise.all(
    ACCOUNTS.map((account) =>
      OneBotPeer.connect({ url, selfId: account.selfId, firstMessageId: account.firstMessageId }),
    ),
  );
  if (model) {
    // Every group answers with the model in place of silence (at CHORUS_LLM_SILENCE_RATE).
    for (const groupId of GROUPS) {
      const reply = await fetch(`${service.consoleUrl}api/group-configs/${groupId}`, {
        method: 'PUT',
        headers: { 'x-chorus-token': CONSOLE_TOKEN, 'content-type': 'application/json' },
        body: JSON.stringify({ agent_chat: 'silence' }),
      });
      if (!reply.ok) throw new Error(`group ${groupId}: HTTP ${reply.status}`);
    }
  }
  let watcher: Watcher | null = null;
  const stopAll = async () => {
    await model?.close();
    await watcher?.stop();
    for (const peer of peers) await peer.close().catch(() => undefined);
    await service.stop(10_000);
    await rm(dir, { recursive: true, force: true });
    await schema?.drop();
  };
  process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)));

  try {
    // Warm-up outside the measured groups: the keyword dictionaries load on first use.
    await until(() => service.chat.onebot.bots().length === ACCOUNTS.length, 5000);
    peers[0]?.groupMessage({ groupId: WARM_GROUP, userId: 1, text: '预热一下词典', messageId: 1, time: 1 });
    await until(() => decided === 1, 10_000);

    const conversation = new Conversation({
      seed: options.seed,
      groupIds: GROUPS,
      membersPerGroup: MEMBERS_PER_GROUP,
      firstTime: Math.floor(Date.now() / 1000) - total - 60,
      botName: 'chorus',
    });
    const learning = service.corpus.runtime.learning;
    const learningBefore = { ...learning.counters };
    const workerBefore = { ...service.corpus.learnWorker.counters };
    if (watched) watcher = startWatcher(`${service.consoleUrl}api`, CONSOLE_TOKEN, GROUPS[0] as number);
    const rssStart = mb(process.memoryUsage().rss);
    const cpuStart = process.cpuUsage();
    const loopDelay = monitorEventLoopDelay({ resolution: 1 });
    loopDelay.enable();
    measuring = true;
    const decidedBefore = decided;
    let frames = 0;
    process.stderr.write(
      `bench:repeater: ${options.rate} messages/s for ${options.seconds} s (${total} messages), ` +
        `${GROUPS.length} groups, ${ACCOUNTS.length} accounts, ${schema ? `PostgreSQL schema ${schema.name}` : `SQLite in ${dir}`}\n`,
    );
    const paced = await sendPaced({
      rate: options.rate,
      seconds: options.seconds,
      tickMs: TICK_MS,
      send: () => {
        const line = conversation.next();
        for (const [index, account] of ACCOUNTS.entries()) {
          if (!account.groups.has(line.groupId)) continue;
          peers[index]?.groupMessage({
            groupId: line.groupId,
            userId: line.userId,
            message: line.message,
            messageId: line.messageId,
            time: line.time,
          });
          frames++;
        }
      },
    });
    for (const peer of peers) await peer.flush();
    const allDecided = await until(() => decided - decidedBefore >= frames, DRAIN_TIMEOUT_MS);
    await service.chat.repeater.idle(DRAIN_TIMEOUT_MS);
    const sentCount = () => peers.reduce((sum, peer) => sum + peer.sent.length, 0);
    const allSent = await until(() => sentCount() >= expectedSends, 10_000);
    const worker = service.corpus.learnWorker.counters;
    const drained = await until(
      () => learning.queue.size === 0 && worker.handled + worker.failed === learning.counters.queued,
      DRAIN_TIMEOUT_MS,
    );
    measuring = false;
    const cpu = process.cpuUsage(cpuStart);
    loopDelay.disable();
    await watcher?.stop();
    const rssEnd = mb(process.memoryUsage().rss);

    const messageLog = service.chat.repeater.messageLog.counters;
    const count = (reason: string) => reasons.get(reason) ?? 0;
    const unsupported = peers.reduce(
      (sum, peer) => sum + peer.actions.filter((action) => !PEER_ACTIONS.has(action.action)).length,
      0,
    );
    const getMsg = peers.reduce((sum, peer) => sum + peer.actions.filter((a) => a.action === 'get_msg').length, 0);
    const learnedDelta = {
      queued: learning.counters.queued - learningBefore.queued,
      excluded: learning.counters.excluded - learningBefore.excluded,
      skippedPressure: learning.counters.skippedPressure - learningBefore.skippedPressure,
      droppedFull: learning.counters.droppedFull - learningBefore.droppedFull,
      handled: worker.handled - workerBefore.handled,
      failed: worker.failed - workerBefore.failed,
    };

    for (const peer of peers) await peer.close();
    await service.stop(10_000);
    await model?.close();
    if (model) process.stdout.write(`model path: ${model.requests.length} model calls\n`);
    await schema?.drop();
    const abandoned = service.corpus.learnWorker.counters.abandonedAtStop;

    const decisions = decisionLatency.summary();
    const lookups = lookupLatency.summary();
    const lag = learnLag.summary();
    const achieved = paced.elapsedMs > 0 ? ((paced.sent - 1) / paced.elapsedMs) * 1000 : Number.NaN;
    const replies = ['threshold', 'cross-group', 'repeat', 'community'].map(count);
    const dropped = {
      learningSkipped: learnedDelta.skippedPressure,
      learningFull: learnedDelta.droppedFull,
      chatLog: messageLog.dropped,
      lookupPressure: count('pressure'),
      lookupTimeout: count('timeout') + count('pool-timeout'),
      abandoned,
    };
    const droppedTotal = Object.values(dropped).reduce((sum, value) => sum + value, 0);
    const missingSends = Math.max(0, expectedSends - sentCount());
    const undecided = Math.max(0, frames - (decided - decidedBefore));
    const errors = {
      decisions: count('error'),
      peer: unsupported + missingSends + learnedDelta.failed,
      log: logs.atLeast(50),
      undecided,
    };
    const errorsTotal = Object.values(errors).reduce((sum, value) => sum + value, 0);
    const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');

    const rows: string[][] = [
      ['message rate (distinct, msg/s)', fmt(achieved), `${options.rate}`, verdict(achieved >= options.rate * 0.97)],
      ['frames over the WebSockets (/s)', fmt((frames / paced.elapsedMs) * 1000), '', ''],
      ['messages sent / frames', `${paced.sent} / ${frames}`, '', `largest batch ${paced.maxBatch}`],
      ['decisions', `${decisions.count}`, `${frames}`, verdict(undecided === 0)],
      ['decision latency p50 (ms)', fmt(decisions.p50, 3), '', ''],
      [
        'decision latency p99 (ms)',
        fmt(decisions.p99, 3),
        `< ${TARGET_DECISION_P99_MS}`,
        verdict(decisions.p99 < TARGET_DECISION_P99_MS),
      ],
      ['decision latency max (ms)', fmt(decisions.max, 2), '', ''],
      [
        `  with a corpus lookup: p50 / p99 (ms), n=${lookups.count}`,
        `${fmt(lookups.p50, 3)} / ${fmt(lookups.p99, 3)}`,
        '',
        '',
      ],
      ['learning lag p50 (ms)', fmt(lag.p50, 2), '', ''],
      [
        'learning lag p99 (ms)',
        fmt(lag.p99, 2),
        `< ${TARGET_LEARN_LAG_P99_MS}`,
        verdict(lag.p99 < TARGET_LEARN_LAG_P99_MS),
      ],
      ['learning lag max (ms)', fmt(lag.max, 2), '', ''],
      ['pairs learned (written) / excluded', `${learnedDelta.handled} / ${learnedDelta.excluded}`, '', ''],
      [
        'CPU per learned pair (ms, this process: Chorus, peers, sender)',
        fmt((cpu.user + cpu.system) / 1000 / Math.max(1, learnedDelta.handled), 3),
        '',
        '',
      ],
      ['replies: own group / cross-group / repeat / community', replies.join(' / '), '', ''],
      ['replies received by the peers', `${sentCount()} of ${expectedSends}`, '', verdict(allSent)],
      ['dropped: learning skipped (pressure)', `${dropped.learningSkipped}`, '', ''],
      ['dropped: learning queue full', `${dropped.learningFull}`, '', ''],
      ['dropped: chat log buffer full', `${dropped.chatLog}`, '', ''],
      ['dropped: reply lookups skipped (pool pressure)', `${dropped.lookupPressure}`, '', ''],
      ['dropped: reply lookups timed out', `${dropped.lookupTimeout}`, '', ''],
      ['dropped: learn jobs abandoned at stop', `${dropped.abandoned}`, '', ''],
      ['errors: decisions ending in error', `${errors.decisions}`, '0', verdict(errors.decisions === 0)],
      [
        'errors: peer side (unsent replies, failed actions, failed learns)',
        `${errors.peer}`,
        '0',
        verdict(errors.peer === 0),
      ],
      ['errors: error-level log lines', `${errors.log}`, '0', verdict(errors.log === 0)],
      ['warn-level log lines', `${logs.atLeast(40) - errors.log}`, '', ''],
      [
        'event-loop delay p99 / max (ms)',
        `${fmt(loopDelay.percentile(99) / 1e6)} / ${fmt(loopDelay.max / 1e6)}`,
        '',
        '',
      ],
      ['RSS at start / end (MB, Chorus + peers)', `${fmt(rssStart)} / ${fmt(rssEnd)}`, '', ''],
      ['get_msg calls / chat log rows written', `${getMsg} / ${messageLog.written}`, '', ''],
      ...(watcher
        ? [
            [
              'console watcher: reads / failed / log stream bytes',
              `${watcher.counts.polls} / ${watcher.counts.failed} / ${watcher.counts.streamBytes}`,
              '',
              '',
            ],
          ]
        : []),
    ];
    console.log(formatTable(['measure', 'ours', 'target', ''], rows));
    const kinds = [...conversation.kinds].map(([kind, n]) => `${kind} ${n}`).join(', ');
    console.log(`\nconversation: ${kinds}`);
    const byReason = [...reasons].sort((a, b) => b[1] - a[1]);
    console.log(`decisions by reason: ${byReason.map(([reason, n]) => `${reason} ${n}`).join(', ')}`);
    for (const [message, n] of logs.messages) console.log(`log (warn or worse) ×${n}: ${message}`);
    if (!allDecided || !drained) console.log('the pipeline did not drain within the deadline (counted as errors)');
    if (achieved < options.rate * 0.97)
      console.log('the sender did not achieve the target rate: figures are for less load');
    if (watched) console.log('(run with a console watcher)');
    console.log(
      `RESULT bench:repeater engine=${options.engine} decision_p99_ms=${fmt(decisions.p99, 3)} learn_lag_p99_ms=${fmt(lag.p99, 2)} ` +
        `dropped=${droppedTotal} errors=${errorsTotal} rss_start_mb=${fmt(rssStart)} rss_end_mb=${fmt(rssEnd)}`,
    );
    await rm(dir, { recursive: true, force: true });
    return decisions.p99;
  } catch (error) {
    await stopAll().catch(() => undefined);
    throw error;
  }
}

let options: RepeaterBenchOptions;
try {
  options = parseRepeaterArgs(process.argv.slice(2), process.env);
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  console.error(`bench:repeater: ${error.message}`);
  process.exit(2);
}
if (options.processes !== null) {
  process.stderr.write(
    `bench:repeater: ${options.rate} messages/s for ${options.seconds} s into ${options.processes} ` +
      `chorus serve process(es) on ${options.engine}\n`,
  );
  const result = await runFleet({
    engine: options.engine,
    processes: options.processes,
    rate: options.rate,
    seconds: options.seconds,
    seed: options.seed,
    databaseUrl: options.databaseUrl,
    drainTimeoutMs: DRAIN_TIMEOUT_MS,
    log: (line) => process.stderr.write(`bench:repeater: ${line}\n`),
  });
  console.log(formatFleet(result));
  console.log(fleetResultLine(result));
} else if (options.watched) {
  const plain = await main(options, false);
  const watchedP99 = await main(options, true);
  console.log(
    `RESULT bench:repeater watched decision_p99_ms plain=${fmt(plain, 3)} watched=${fmt(watchedP99, 3)} ` +
      `ratio=${fmt(watchedP99 / plain, 3)}`,
  );
} else {
  await main(options);
}
