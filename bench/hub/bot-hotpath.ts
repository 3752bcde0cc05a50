/**
 * bench:hub (bot part): the reply hot path of a real bot (`startService`, SQLite, prefetch mode,
 * enrolled with a real hub child process) while the hub is healthy, black-holed (the hub process
 * stopped and a TCP server that accepts and never answers put on its port) and down (nothing
 * listening). The bot's configuration is left alone between the cases: only the hub changes, as
 * when a hub dies. The hot path must not feel it: p99 within 10% of healthy.
 *
 * The key mix: 80% known keys with a skewed popularity, 20% keys the bot never learned (each
 * case has its own, so prefetch gets scheduled in every case); the hub holds one in eight of the
 * healthy case's unknown keys, so prefetch also imports. The bare row is the bot's local store
 * alone (no composite, no community) on the same bot: what a lookup costs without any of it.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startService, type RunningService } from '../../src/app/service.ts';
import { cumulativeOf, mulberry32, weighted } from '../lib/rng.ts';
import { Samples, ratio, type Summary } from '../lib/stats.ts';
import { fmt, formatTable } from '../lib/table.ts';
import {
  blackHoleOn,
  freePort,
  startHubChild,
  withPostgresSchema,
  type BlackHole,
  type HubChild,
} from './processes.ts';

export type HubEngine = 'sqlite' | 'postgres';
export type BotCase = 'bare' | 'healthy' | 'black-holed' | 'down';

export interface BotHotPathOptions {
  engine: HubEngine;
  /** Lookups per case. */
  lookups: number;
  /** Contexts in the bot's SQLite corpus. */
  contexts: number;
  /** Lookups per second (open loop). */
  ratePerSec: number;
  databaseUrl: string;
  progress: (line: string) => void;
}

export interface CaseFigures {
  name: BotCase;
  summary: Summary;
  seconds: number;
  /** Misses the composite handed to prefetch (0 for the bare row). */
  scheduled: number;
  /** Keys prefetch queued, community reads sent, reads failed, contexts imported. */
  queued: number;
  reads: number;
  remoteErrors: number;
  imported: number;
  /** Prefetch not scheduled for SQLite pressure (>= 0.15). */
  prefetchGated: number;
  /** Reply lookups the local store skipped (answered null) for SQLite pressure (>= 0.55). */
  replySkipped: number;
}

export interface BotHotPathFigures {
  engine: HubEngine;
  contexts: number;
  ratePerSec: number;
  loadSeconds: number;
  hubSeeded: number;
  cases: CaseFigures[];
  /** Warnings and errors the bot logged (expected once the hub is gone). */
  botWarnings: number;
  /** The distinct messages of the first of them. */
  botWarningMessages: string[];
  /** Connections the black hole accepted. */
  blackHoleConnections: number;
}

const SYLLABLES = [
  ...'的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽坏兴',
];

/** A known key: 2 to 4 characters plus a tail, so some are short keys and most are not. */
function knownKey(index: number): string {
  let text = '';
  let value = index + 1;
  while (value > 0) {
    text += SYLLABLES[value % SYLLABLES.length];
    value = Math.floor(value / SYLLABLES.length);
  }
  return `${text}${SYLLABLES[index % 7]}了吗`;
}

/** An unknown key of a case: `tag` keeps each case's misses its own. */
const unknownKey = (tag: string, index: number) => `${tag}没学过的话${index}`;

/** 80% known keys (popularity skewed to the low indexes), 20% unknown keys of `tag`. */
function keyMix(seed: number, count: number, contexts: number, tag: string): string[] {
  const random = mulberry32(seed);
  const keys: string[] = new Array<string>(count);
  for (let index = 0; index < count; index++) {
    keys[index] =
      random() < 0.2
        ? unknownKey(tag, Math.floor(random() * contexts))
        : knownKey(Math.floor(contexts * random() ** 3));
  }
  return keys;
}

async function populate(service: RunningService, contexts: number): Promise<void> {
  const random = mulberry32(7);
  const answerWeights = cumulativeOf([60, 25, 10, 5]);
  for (let index = 0; index < contexts; index++) {
    const answers = 1 + weighted(random, answerWeights) * 2;
    for (let answer = 0; answer < answers; answer++) {
      await service.store.corpus.learnAnswer({
        keywords: knownKey(index),
        groupId: 1 + (answer % 3),
        answerKeywords: `答${answer}`,
        answerTime: 1_700_000_000 + index,
        message: `回复${answer}`,
        appendOnExisting: true,
      });
    }
  }
}

/** The hub holds every eighth unknown key of the healthy case (one enrolled seeding deployment). */
async function seedHub(hubUrl: string, contexts: number): Promise<number> {
  const enrolled = await fetch(`${hubUrl}/v1/corpus/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ deployment_id: randomUUID() }),
  });
  if (enrolled.status !== 200) throw new Error(`hub enroll answered ${enrolled.status}`);
  const token = ((await enrolled.json()) as { corpus_token: string }).corpus_token;
  const indexes = Array.from({ length: Math.ceil(contexts / 8) }, (_, i) => i * 8);
  let next = 0;
  const loop = async () => {
    while (next < indexes.length) {
      const index = indexes[next++] ?? 0;
      const response = await fetch(`${hubUrl}/v1/corpus/contribute`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          op: 'insert',
          context: {
            keywords: unknownKey('甲', index),
            answers: [{ keywords: '社区答', count: 2, messages: ['社区的回答'] }],
          },
        }),
      });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`hub contribute answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, () => loop()));
  return indexes.length;
}

async function waitFor(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface Counts {
  scheduled: number;
  queued: number;
  reads: number;
  remoteErrors: number;
  imported: number;
  prefetchGated: number;
  replySkipped: number;
}

function counts(service: RunningService): Counts {
  const { community, runtime } = service.corpus;
  const all = community.counters();
  const runner = community.parts.prefetchRunner.counters;
  return {
    scheduled: runtime.composite.counters.prefetchScheduled,
    queued: community.parts.prefetchQueue.counters.queued,
    reads: all.community_client?.reads ?? 0,
    remoteErrors: runner.remoteErrors,
    imported: runner.importedInserts + runner.importedUpserts,
    prefetchGated: community.parts.prefetchQueue.counters.skippedPoolPressure,
    replySkipped: service.store.corpus.stats().skippedPressure,
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const yieldToIo = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Open loop at `ratePerSec`: each lookup is its own macrotask (as each incoming message is), so
 * the bot's I/O (prefetch reads, a black-holed connection, refusals) runs between lookups. A
 * closed loop of lookups answered from caches would never yield to the event loop at all, and
 * would also keep SQLite "busy" (the pool pressure of docs/rules.md#store-pressure) until prefetch is gated off.
 */
async function measure(
  service: RunningService,
  name: BotCase,
  keys: readonly string[],
  lookup: (key: string) => Promise<unknown>,
  ratePerSec: number,
): Promise<CaseFigures> {
  const before = counts(service);
  const samples = new Samples(keys.length);
  const started = performance.now();
  let index = 0;
  while (index < keys.length) {
    const due = Math.floor(((performance.now() - started) / 1000) * ratePerSec) + 1;
    if (index >= due) {
      await sleep(1);
      continue;
    }
    const key = keys[index++] ?? '';
    const begun = process.hrtime.bigint();
    await lookup(key);
    samples.add(Number(process.hrtime.bigint() - begun) / 1000);
    await yieldToIo();
  }
  const seconds = (performance.now() - started) / 1000;
  const after = counts(service);
  return {
    name,
    summary: samples.summary(),
    seconds,
    scheduled: after.scheduled - before.scheduled,
    queued: after.queued - before.queued,
    reads: after.reads - before.reads,
    remoteErrors: after.remoteErrors - before.remoteErrors,
    imported: after.imported - before.imported,
    prefetchGated: after.prefetchGated - before.prefetchGated,
    replySkipped: after.replySkipped - before.replySkipped,
  };
}

/** One engine's hub, one bot, four cases. Cleans up the hub, the black hole, the bot and its folder. */
export async function benchBotHotPath(options: BotHotPathOptions): Promise<BotHotPathFigures> {
  const { engine, progress } = options;
  const run = async (hubEnv: Record<string, string>): Promise<BotHotPathFigures> => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-hub-bot-'));
    let hub: HubChild | undefined;
    let hole: BlackHole | undefined;
    let service: RunningService | undefined;
    let botWarnings = 0;
    const warningMessages = new Set<string>();
    try {
      // Seeded by one deployment: the origin's serving rule, so the bot's lookups hit (the agreement
      // rule's cost is measured in the server part, bench/hub-server.ts).
      hub = await startHubChild({
        CHORUS_HUB_MIN_DEPLOYMENTS: '1',
        CHORUS_HUB_COUNT_PER_DEPLOYMENT_MAX: '0',
        ...hubEnv,
        CHORUS_HUB_DATA_DIR: join(dir, 'hub-data'),
      });
      const hubSeeded = await seedHub(hub.url, options.contexts);
      service = await startService({
        env: {
          CHORUS_PORT: String(await freePort()),
          // Set, so the bot does not generate one (and log it as a warning).
          CHORUS_CONSOLE_TOKEN: 'bench-hub-console-token-0123456789',
          CHORUS_COMMUNITY_STATS_ENDPOINT: `${hub.url}/v1/heartbeat`,
          CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
          CHORUS_CORPUS_AUTO_ENROLL: 'true',
          CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch',
        },
        projectDir: join(dir, 'bot'),
        logLevel: 'warn',
        logDestination: new Writable({
          write(chunk: Buffer, _encoding, done) {
            for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
              botWarnings++;
              const message = /"msg":"([^"]*)"/.exec(line)?.[1];
              if (message !== undefined && warningMessages.size < 5) warningMessages.add(message);
            }
            done();
          },
        }),
      });
      const bot = service;
      const loadStarted = performance.now();
      await populate(bot, options.contexts);
      const loadSeconds = (performance.now() - loadStarted) / 1000;
      await waitFor(() => bot.corpus.community.enrollment() !== null, 20_000, 'the bot to enroll');
      await waitFor(() => bot.corpus.community.parts.repository.get() !== null, 5000, 'the community client');
      progress(
        `bench:hub: ${engine}: bot enrolled; ${options.contexts} contexts loaded in ${fmt(loadSeconds, 2)} s; ` +
          `${options.lookups} lookups per case`,
      );

      const composite = bot.corpus.runtime.composite;
      const viaComposite = (key: string) => composite.findByKeywordsForReply(key);
      const local = bot.store.corpus;
      const viaLocal = (key: string) => local.findByKeywordsForReply(key);
      const rate = options.ratePerSec;
      /**
       * Every case starts from the same state: caches emptied, a warm-up of its own (not
       * measured), then a pause for SQLite's pressure window (1 s) to pass. Without it the cases
       * differ by where they fall in the find cache's TTL (45 s by default) rather than by the hub.
       */
      const runCase = async (name: BotCase, seed: number, tag: string, lookup: (key: string) => Promise<unknown>) => {
        composite.invalidateFindCache();
        local.invalidateSnapshots();
        const warmCount = Math.max(5000, Math.floor(options.lookups / 8));
        await measure(bot, name, keyMix(seed + 100, warmCount, options.contexts, `热${tag}`), lookup, rate * 2);
        await sleep(1100);
        return measure(bot, name, keyMix(seed, options.lookups, options.contexts, tag), lookup, rate);
      };

      const cases: CaseFigures[] = [];
      cases.push(await runCase('bare', 2, '零', viaLocal));
      progress(`bench:hub: ${engine}: hub healthy`);
      cases.push(await runCase('healthy', 3, '甲', viaComposite));

      progress(`bench:hub: ${engine}: hub black-holed`);
      await hub.stop();
      hole = await blackHoleOn(hub.port);
      cases.push(await runCase('black-holed', 4, '乙', viaComposite));
      const blackHoleConnections = hole.accepted();

      progress(`bench:hub: ${engine}: hub down`);
      await hole.close();
      hole = undefined;
      cases.push(await runCase('down', 5, '丙', viaComposite));
      return {
        engine,
        contexts: options.contexts,
        ratePerSec: rate,
        loadSeconds,
        hubSeeded,
        cases,
        botWarnings,
        botWarningMessages: [...warningMessages],
        blackHoleConnections,
      };
    } finally {
      await service?.stop(10_000).catch((error: unknown) => progress(`bench:hub: bot stop: ${String(error)}`));
      await hole?.close();
      await hub?.stop();
      await rm(dir, { recursive: true, force: true });
    }
  };
  if (engine === 'postgres') {
    return withPostgresSchema(options.databaseUrl, (url) =>
      run({ CHORUS_HUB_DATABASE_URL: url, CHORUS_HUB_DATABASE_POOL_MAX: '8' }),
    );
  }
  return run({ CHORUS_HUB_DATABASE_URL: '' });
}

/** p99 of `name` over healthy's. */
export function p99Ratio(figures: BotHotPathFigures, name: BotCase): number {
  const of = (wanted: BotCase) => figures.cases.find((entry) => entry.name === wanted)?.summary.p99 ?? Number.NaN;
  return ratio(of(name), of('healthy'));
}

export function formatBotHotPath(figures: BotHotPathFigures): string {
  const bare = figures.cases.find((entry) => entry.name === 'bare');
  const label: Record<BotCase, string> = {
    bare: 'bare: local store alone (misses uncached)',
    healthy: 'composite, hub healthy',
    'black-holed': 'composite, hub black-holed',
    down: 'composite, hub down',
  };
  const rows = figures.cases.map((entry) => [
    label[entry.name],
    fmt(entry.summary.p50, 2),
    fmt(entry.summary.p99, 2),
    fmt(entry.summary.mean, 2),
    fmt(entry.summary.max),
    fmt(entry.summary.count / entry.seconds),
    entry.name === 'bare' ? '-' : `${entry.queued}/${entry.reads}/${entry.remoteErrors}/${entry.imported}`,
    `${entry.name === 'bare' ? '-' : entry.prefetchGated}/${entry.replySkipped}`,
    fmt(ratio(entry.summary.p99, bare?.summary.p99 ?? Number.NaN), 2),
    entry.name === 'bare' ? '-' : fmt(p99Ratio(figures, entry.name), 2),
  ]);
  return [
    formatTable(
      [
        'bot hot path',
        'p50 µs',
        'p99 µs',
        'mean µs',
        'max µs',
        'lookups/s',
        'prefetch queued/reads/errors/imported',
        'pressure: prefetch gated/reply skipped',
        'p99 / bare',
        'p99 / healthy',
      ],
      rows,
    ),
    `bot: open loop at ${figures.ratePerSec} lookups/s, one per macrotask; startService on SQLite, ${figures.contexts} contexts (loaded in ${fmt(figures.loadSeconds, 2)} s), prefetch mode, ` +
      `enrolled with a ${figures.engine} hub (a child process, limits off; ${figures.hubSeeded} of the healthy case's unknown keys on it); ` +
      `the black hole accepted ${figures.blackHoleConnections} connections; ${figures.botWarnings} warning lines logged by the bot${figures.botWarningMessages.length ? ` (${figures.botWarningMessages.join('; ')})` : ''}`,
    'target: black-holed and down p99 within 1.10 of healthy',
  ].join('\n');
}
