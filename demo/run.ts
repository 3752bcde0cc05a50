/**
 * npm run demo: Chorus on a temporary database, a scripted OneBot peer over a real WebSocket, and
 * the bundled conversation replayed across three groups. Prints each reply Chorus sent (with the
 * reason) and what it learned. Finishes in well under a minute; removes its temporary files.
 *
 * `npm run demo -- --hub` also runs a community hub on loopback: the bot enrolls with it and
 * shares what it learns, and the demo ends with what was shared, what was kept back and why.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startService } from '../src/app/service.ts';
import { startHub, type RunningHub } from '../src/hub/start.ts';
import { aggregateLocalHotKeywords } from '../src/corpus/local-hot.ts';
import { seededRandom, type RepeaterDecision } from '../src/repeater/index.ts';
import { OneBotPeer } from '../test/fixtures/onebot-peer.ts';
import { EXCHANGES, FILLER, GROUPS } from './conversation.ts';

const BOT_QQ = 10001;
/** Pause between two messages: time for the learner to write and the reply cache to refresh. */
const MESSAGE_GAP_MS = 45;
/**
 * The conversation spans a few hours of group time, replayed in seconds: each message carries its
 * own timestamp, 20 s after the previous one. (Chorus pairs a message with the last one sent
 * strictly before it, so a replay that put many messages in one second would pair them wrongly.)
 */
const CHAT_SECONDS_PER_MESSAGE = 20;

interface Line {
  groupId: number;
  userId: number;
  text: string;
}

/** The replay: every group goes through the weighted exchanges in its own shuffled order. */
function script(random: () => number): Line[] {
  const lines: Line[] = [];
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const queues = GROUPS.map((group) => {
    const exchanges = EXCHANGES.flatMap((exchange) => Array.from({ length: exchange.weight }, () => exchange));
    for (let i = exchanges.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [exchanges[i], exchanges[j]] = [exchanges[j]!, exchanges[i]!];
    }
    return { group, exchanges };
  });
  // Interleave the groups exchange by exchange, as real groups talk at the same time.
  for (let round = 0; queues.some((queue) => queue.exchanges.length > 0); round++) {
    for (const queue of queues) {
      const exchange = queue.exchanges.shift();
      if (!exchange) continue;
      let speaker = Math.floor(random() * queue.group.members.length);
      for (const text of exchange.lines) {
        lines.push({ groupId: queue.group.groupId, userId: queue.group.members[speaker]!, text });
        speaker = (speaker + 1 + Math.floor(random() * 2)) % queue.group.members.length;
      }
      if (random() < 0.1)
        lines.push({ groupId: queue.group.groupId, userId: pick(queue.group.members), text: pick(FILLER) });
      // Now and then the group piles on with the same line: Chorus may join once.
      if (round % 12 === 6) {
        const text = pick(['+1', '哈哈哈哈', '666']);
        for (const userId of queue.group.members.slice(0, 3))
          lines.push({ groupId: queue.group.groupId, userId, text });
      }
    }
  }
  return lines;
}

/** Pads to a terminal width: CJK characters take two columns. */
function pad(text: string, columns: number): string {
  let width = 0;
  for (const char of text)
    width += /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/.test(char)
      ? 2
      : 1;
  return text + ' '.repeat(Math.max(1, columns - width));
}

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const address = server.address();
  server.close();
  if (typeof address !== 'object' || !address) throw new Error('no free port');
  return address.port;
}

const REASONS: Record<string, string> = {
  threshold: '本群学到的回答',
  'cross-group': '多个群都这么回',
  repeat: '跟着复读一次',
  community: '社区词库',
};

async function main(): Promise<void> {
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), 'chorus-demo-'));
  const port = await freePort();
  const decisions: RepeaterDecision[] = [];
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const withHub = process.argv.includes('--hub');
  const hub: RunningHub | null = withHub
    ? await startHub({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'hub') })
    : null;
  const community: Record<string, string> = hub
    ? {
        CHORUS_CORPUS_COMMUNITY_ENABLED: 'true',
        CHORUS_CORPUS_AUTO_ENROLL: 'true',
        CHORUS_COMMUNITY_STATS_ENDPOINT: `${hub.url}/v1/heartbeat`,
      }
    : {};
  const service = await startService({
    projectDir: dir,
    env: {
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: 'chorus-demo-token-not-secret',
      // Replies at once and no per-group pause, so a minute of chat fits in a few seconds.
      CHORUS_REPEATER_COOLDOWN_SEC: '0',
      CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
      CHORUS_REPEATER_SPLIT_DELAY_SEC: '0-0',
      CHORUS_REPEATER_BUNDLE_CACHE_SEC: '0',
      CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC: '0',
      CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: '1',
      ...community,
    },
    logDestination: silent,
    random: seededRandom(2026),
    onDecision: (decision) => decisions.push(decision),
  });
  const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: BOT_QQ });
  const seed = seededRandom(7);
  const lines = script(() => seed.next());
  const names = new Map(GROUPS.map((group) => [group.groupId, group.name]));
  const said = new Map<number, string>();
  try {
    process.stdout.write(`Chorus demo: ${lines.length} messages in ${GROUPS.length} groups, bot QQ ${BOT_QQ}\n\n`);
    let time = Math.floor(Date.now() / 1000) - lines.length * CHAT_SECONDS_PER_MESSAGE;
    for (const line of lines) {
      time += CHAT_SECONDS_PER_MESSAGE;
      const messageId = peer.groupMessage({ groupId: line.groupId, userId: line.userId, text: line.text, time });
      said.set(messageId, line.text);
      await new Promise((resolve) => setTimeout(resolve, MESSAGE_GAP_MS));
    }
    await service.chat.repeater.idle();
    await new Promise((resolve) => setTimeout(resolve, 200));

    const replies = decisions.filter((decision) => decision.outcome === 'replied');
    process.stdout.write(`Replies Chorus sent (${replies.length}):\n`);
    process.stdout.write(`${pad('群', 14)}${pad('有人说', 16)}${pad('Chorus 回', 16)}原因\n`);
    for (const reply of replies) {
      const group = names.get(reply.groupId) ?? String(reply.groupId);
      const trigger = said.get(reply.messageId) ?? '';
      const reason = REASONS[reply.reason] ?? reply.reason;
      process.stdout.write(
        `${group.padEnd(8)}  ${trigger.padEnd(12)}  ${reply.texts.join(' / ').padEnd(12)}  ${reason}\n`,
      );
    }

    const learned = await aggregateLocalHotKeywords(service.store.corpus, { limit: 15, answersPerKeyword: 3 });
    process.stdout.write(`\nWhat Chorus learned (top ${learned.length} phrases by how often they were answered):\n`);
    for (const item of learned) {
      // The same answer learned in several groups is one line here.
      const counts = new Map<string, number>();
      for (const answer of item.answers) counts.set(answer.message, (counts.get(answer.message) ?? 0) + answer.count);
      const answers = [...counts].map(([message, count]) => `${message} ×${count}`).join('   ');
      process.stdout.write(`  ${pad(item.keywords, 14)}→ ${answers}\n`);
    }
    const byReason = new Map<string, number>();
    for (const decision of decisions) byReason.set(decision.reason, (byReason.get(decision.reason) ?? 0) + 1);
    process.stdout.write(
      `\n${decisions.length} messages decided: ${[...byReason].map(([reason, count]) => `${reason} ${count}`).join(', ')}\n`,
    );
    if (hub) {
      const counters = () => ({ ...service.corpus.counters(), mirror: { ...service.corpus.runtime.mirror.counters } });
      await reportCommunity(counters, hub);
    }
    process.stdout.write(`done in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  } finally {
    await peer.close();
    await service.stop();
    await hub?.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** What went to the hub and what was kept back, per reason (the mirror drains first). */
async function reportCommunity(counters: () => Record<string, Record<string, number>>, hub: RunningHub): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (Date.now() < deadline && (counters().mirror?.queued ?? 0) > (counters().mirror_worker?.handled ?? 0)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const now = counters();
  const line = (name: string) =>
    Object.entries(now[name] ?? {})
      .map(([key, value]) => `${key} ${value}`)
      .join(', ');
  process.stdout.write(`\nShared with the community hub: ${line('community_mirror')}\n`);
  process.stdout.write(`Kept back by the mirror: ${line('deidentify_mirror')}\n`);
  process.stdout.write(`Waiting for the hub: ${line('community_mirror_retry')}\n`);
  const health = (await (await fetch(`${hub.url}/health`)).json()) as { withheld: Record<string, number> };
  const withheld = Object.entries(health.withheld).map(([key, value]) => `${key} ${value}`);
  process.stdout.write(`Kept back by the hub itself: ${withheld.join(', ')}\n`);
}

await main();
