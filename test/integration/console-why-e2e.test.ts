/**
 * "Why did it (not) answer" end to end: `startService` on SQLite, a scripted OneBot peer over a
 * real WebSocket, a chat that produces many decision reasons, then the console over real HTTP:
 * /repeater/decisions names each reason as the repeater decided it, with its sentence; the
 * groups list, message stats, hourly metrics, bots, system and the overview agree with the chat.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { startService, type RunningService } from '../../src/app/service.ts';
import {
  BAN_WORD,
  jiebaTagger,
  KeywordExtractor,
  seededRandom,
  type RepeaterDecision,
} from '../../src/repeater/index.ts';
import { describeText } from '../../src/repeater/keywords.ts';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const TOKEN = 'why-e2e-console-token-not-secret';
const BOT = 10001;
const GROUP = 301;
const IGNORED = 666;
const KEYWORDS = new KeywordExtractor({ tagger: jiebaTagger() });
const keywordsOf = (text: string): string => describeText(text, text, KEYWORDS).keywords;

async function waitUntil(what: string, condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

interface DecisionView {
  at: number;
  message_id: number;
  outcome: string;
  reason: string;
  keywords: string;
  texts: string[];
  cache: string | null;
  latency_ms: number;
  threshold: number | null;
  explanation: string;
}

describe('why it answered or not: the decisions route after a real chat', () => {
  let dir: string;
  let service: RunningService;
  let peer: OneBotPeer;
  let api: string;
  const decisions: RepeaterDecision[] = [];
  let second = Math.floor(Date.now() / 1000) - 50_000;

  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${api}${path}`, { headers: { 'x-chorus-token': TOKEN } });
    const body = (await response.json()) as { ok: boolean; data: T; detail?: string };
    assert.equal(response.status, 200, `${path}: ${body.detail}`);
    return body.data;
  };
  const say = (text: string, userId = 9, extra: { role?: 'owner' | 'admin' | 'member'; message?: string } = {}) =>
    peer.groupMessage({ groupId: GROUP, userId, text, time: ++second, ...extra });
  const decided = async (messageId: number): Promise<RepeaterDecision> => {
    await waitUntil(`decision on ${messageId}`, () => decisions.some((d) => d.messageId === messageId));
    return decisions.find((d) => d.messageId === messageId) as RepeaterDecision;
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'chorus-why-e2e-'));
    const port = await freePort();
    service = await startService({
      projectDir: dir,
      env: {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: TOKEN,
        CHORUS_REPEATER_NICKNAMES: '小合',
        CHORUS_REPEATER_IGNORE_USER_IDS: String(IGNORED),
        CHORUS_REPEATER_COOLDOWN_SEC: '0',
        CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
        CHORUS_REPEATER_SPLIT_DELAY_SEC: '0-0',
        CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
        CHORUS_REPEATER_BUNDLE_CACHE_SEC: '0',
        CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC: '0',
        CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
        CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
        CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: '1',
      },
      logDestination: new Writable({ write: (_c, _e, done) => done() }),
      random: seededRandom(7),
      onDecision: (decision) => decisions.push(decision),
    });
    api = `${service.consoleUrl}api`;
    peer = await OneBotPeer.connect({
      url: `ws://127.0.0.1:${port}/onebot/v11/ws`,
      selfId: BOT,
      nickname: '小合本合',
      firstMessageId: 1_000_001,
    });
    await waitUntil('bot online', () => service.chat.onebot.bots().some((bot) => bot.selfId === BOT));
  });
  after(async () => {
    await peer?.close().catch(() => undefined);
    await service?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('produces each reason in a chat, and the route names each one as decided, with its sentence', async () => {
    const expected = new Map<number, string>();
    const expect = async (messageId: number, reason: string) => {
      const decision = await decided(messageId);
      assert.equal(decision.reason, reason, `message ${messageId}`);
      expected.set(messageId, reason);
      return decision;
    };

    // An answer ready in this group (seen 3 times), so the bot has something to say.
    const phrase = '周末去哪里玩呀';
    const answer = '去爬山吧';
    for (let i = 0; i < 3; i++) {
      await service.store.corpus.learnAnswer({
        keywords: keywordsOf(phrase),
        groupId: GROUP,
        answerKeywords: keywordsOf(answer),
        answerTime: second,
        message: answer,
        appendOnExisting: true,
      });
    }
    service.store.corpus.invalidateSnapshots();

    await expect(say('嗯嗯嗯'), 'skip-rule');
    await expect(say('', 9, { message: '[CQ:image,file=cat.jpg]' }), 'no-text');
    await expect(say('好'), 'too-short');
    await expect(say('小合 今天吃什么'), 'addressed');
    await expect(say('量子力学的基本原理是什么'), 'no-context');
    await expect(say('我们下周一起去看海边日落吧', IGNORED), 'ignored-user');
    const replied = await expect(say(phrase), 'threshold');
    assert.deepEqual(replied.texts, [answer]);
    const [sent] = await peer.nextSent(1);
    assert.ok(sent);
    await service.chat.repeater.idle();
    const notReady = await expect(say(phrase, 10), 'no-candidate');
    await expect(say(BAN_WORD, 7, { message: `[CQ:reply,id=${sent.messageId}]${BAN_WORD}` }), 'ban');
    await service.chat.repeater.idle();
    await expect(say('小合 闭嘴', 73), 'silence-refused');
    await expect(say('小合 闭嘴', 74, { role: 'owner' }), 'silence-command');
    await expect(say('晚上看什么电影比较好', 75), 'silenced');
    await expect(say('小合 说话', 74, { role: 'owner' }), 'silence-command');
    await service.chat.repeater.idle();
    // Three members say the same thing: the bot joins once, then it is done.
    const repeatIds = [31, 32, 33, 34, 35].map((user) => say('哈哈哈哈哈哈哈', user));
    const repeatReasons = await Promise.all(repeatIds.map(async (id) => (await decided(id)).reason));
    assert.ok(repeatReasons.includes('repeat'), `a repeat: ${repeatReasons.join(',')}`);
    assert.ok(repeatReasons.includes('repeat-done'), `then done: ${repeatReasons.join(',')}`);
    for (const [i, id] of repeatIds.entries()) expected.set(id, repeatReasons[i] as string);
    await service.chat.repeater.idle();

    const reasons = new Set(expected.values());
    assert.ok(reasons.size >= 12, `${reasons.size} distinct reasons`);

    // This process's memory: every reason, its own messages and copies included.
    const page = await get<{ group_id: number; decisions: DecisionView[] }>(
      `/repeater/decisions?group_id=${GROUP}&limit=100&scope=process`,
    );
    assert.equal(page.group_id, GROUP);
    const byMessage = new Map(page.decisions.map((d) => [d.message_id, d]));
    for (const [messageId, reason] of expected) {
      const view = byMessage.get(messageId);
      assert.ok(view, `message ${messageId} is in the ring`);
      assert.equal(view.reason, reason, `message ${messageId}`);
      assert.ok(view.explanation.length > 10, view.explanation);
      assert.ok(view.latency_ms >= 0);
    }
    const sentences = new Map([...expected].map(([id, reason]) => [reason, byMessage.get(id)?.explanation]));
    assert.equal(new Set(sentences.values()).size, sentences.size, 'one distinct sentence per reason');
    assert.match(byMessage.get(replied.messageId)?.explanation ?? '', /去爬山吧/);
    assert.equal(byMessage.get(replied.messageId)?.outcome, 'replied');
    assert.ok(
      page.decisions.every((d, i, all) => i === 0 || (all[i - 1] as DecisionView).at >= d.at),
      'newest first',
    );
    // The threshold drawn, and with explain=true the known answers judged as the corpus stands now.
    const noCandidate = byMessage.get(notReady.messageId);
    // Threshold 3 with weights 0,0,1, one lower for a message with two keywords (周末, 玩).
    assert.equal(noCandidate?.threshold, 2);
    assert.match(noCandidate?.explanation ?? '', /fewer than 2 times/);
    assert.equal(byMessage.get(replied.messageId)?.threshold, 2);
    const explained = await get<{
      decisions: (DecisionView & { answers?: { sample: string; count: number; verdict: string }[] })[];
    }>(`/repeater/decisions?group_id=${GROUP}&limit=100&explain=true&scope=process`);
    const asked = explained.decisions.find((d) => d.message_id === replied.messageId);
    assert.deepEqual(
      asked?.answers?.map((a) => [a.sample, a.count, a.verdict]),
      [
        [answer, 3, 'banned'],
        ['晚上看什么电影比较好', 1, 'below-threshold'],
      ],
      'the answer banned since by 不可以; a line said after the phrase learned once',
    );
    const unknown = explained.decisions.find((d) => d.reason === 'no-context');
    assert.deepEqual(unknown?.answers, []);
    assert.equal(
      explained.decisions.find((d) => d.reason === 'addressed')?.answers,
      undefined,
      'no lookup, nothing to explain',
    );
    const limited = await get<{ decisions: DecisionView[] }>(`/repeater/decisions?group_id=${GROUP}&limit=3`);
    assert.equal(limited.decisions.length, 3);
    assert.deepEqual(await get<{ decisions: unknown[] }>('/repeater/decisions?group_id=999'), {
      group_id: 999,
      decisions: [],
      next_before: null,
    });
    // The kept decisions: one per message, without the bot's own messages and copies.
    const kept = await get<{ decisions: DecisionView[] }>(`/repeater/decisions?group_id=${GROUP}&limit=200`);
    const notKept = new Set(['self', 'duplicate-id', 'duplicate-event', 'claimed-elsewhere']);
    assert.deepEqual(
      kept.decisions.map((d) => d.message_id).sort((a, b) => a - b),
      decisions
        .filter((d) => d.groupId === GROUP && !notKept.has(d.reason))
        .map((d) => d.messageId)
        .sort((a, b) => a - b),
    );
    const missing = await fetch(`${api}/repeater/decisions?scope=process`, { headers: { 'x-chorus-token': TOKEN } });
    assert.equal(missing.status, 400);
    assert.match(((await missing.json()) as { detail: string }).detail, /group_id/);

    const groups = await get<{ group_id: number; total: number; last_reason: string | null }[]>('/repeater/groups');
    const mine = groups.find((g) => g.group_id === GROUP);
    assert.ok(mine);
    assert.equal(mine.total, decisions.filter((d) => d.groupId === GROUP).length);

    // The same chat in the counts.
    const stats = await get<{
      totals: { received: number; replies: number; sent: number };
      bots: { self_id: number; actions_called: number | null }[];
    }>(`/message-stats?self_id=${BOT}&minutes=60`);
    assert.equal(stats.totals.received, decisions.filter((d) => d.reason !== 'self').length);
    assert.equal(stats.totals.replies, decisions.filter((d) => d.outcome === 'replied').length);
    assert.ok((stats.bots[0]?.actions_called ?? 0) >= stats.totals.sent);

    const history = await get<{ decisions: number; by_reason: Record<string, number>; p50_ms: number | null }[]>(
      '/repeater-metrics/history?limit=2',
    );
    const hours = history.reduce((sum, hour) => sum + hour.decisions, 0);
    assert.equal(hours, decisions.length);
    for (const reason of reasons) {
      assert.ok(
        history.some((hour) => (hour.by_reason[reason] ?? 0) > 0),
        `${reason} counted by the hour`,
      );
    }
    assert.equal(typeof history[0]?.p50_ms, 'number');

    const bots = await get<
      {
        self_id: number;
        nickname: string | null;
        remote_address: string | null;
        frames_in: number;
        frames_out: number;
      }[]
    >('/bots');
    assert.deepEqual(
      bots.map((bot) => [bot.self_id, bot.nickname]),
      [[BOT, '小合本合']],
    );
    assert.match(bots[0]?.remote_address ?? '', /127\.0\.0\.1/);
    assert.ok((bots[0]?.frames_in ?? 0) >= decisions.length);
    assert.ok((bots[0]?.frames_out ?? 0) >= 1);

    const system = await get<{ engine: string; node_version: string; deployment: string; disk: unknown }>('/system');
    assert.equal(system.engine, 'sqlite');
    assert.equal(system.node_version, process.version);
    assert.ok(['source', 'release', 'container'].includes(system.deployment));
    assert.ok(system.disk !== null);

    const overview =
      await get<Record<string, { status: string; error: string | null; data: unknown }>>('/home/overview');
    for (const part of ['health', 'system', 'bots', 'activity', 'community']) {
      assert.equal(overview[part]?.status, 'ok', `${part}: ${overview[part]?.error}`);
    }
    const activity = overview.activity?.data as {
      received_per_min: number;
      decisions_last_hour: Record<string, number>;
    };
    assert.ok(activity.received_per_min > 0);
    assert.equal(activity.decisions_last_hour.threshold, 1);
  });

  it('GET /metrics is Prometheus text with every named metric, counting the same decisions', async () => {
    const learning = service.corpus.runtime.learning;
    const worker = service.corpus.learnWorker.counters;
    await waitUntil(
      'learning drained',
      () => learning.queue.size === 0 && worker.handled + worker.failed === learning.counters.queued,
    );
    const anonymous = await fetch(`${api}/metrics`);
    assert.equal(anonymous.status, 401);
    const byHeader = await fetch(`${api}/metrics`, { headers: { 'x-chorus-token': TOKEN } });
    assert.equal(byHeader.status, 200);
    assert.match(byHeader.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const byQuery = await fetch(`${api}/metrics?token=${TOKEN}`);
    assert.equal(byQuery.status, 200);
    const families = parsePrometheusTextFormat(await byQuery.text());
    const family = (name: string) => {
      const found = families.find((f) => f.name === name);
      assert.ok(found, `${name} is present`);
      return found;
    };
    for (const name of [
      'chorus_messages_received_total',
      'chorus_decisions_total',
      'chorus_replies_total',
      'chorus_learn_writes_total',
      'chorus_queue_size',
      'chorus_queue_dropped',
      'chorus_bundle_cache_hit_ratio',
      'chorus_decision_latency_seconds',
      'chorus_lookup_latency_seconds',
      'chorus_learn_lag_seconds',
      'chorus_component_counter',
      'chorus_nodejs_eventloop_lag_seconds',
      'chorus_nodejs_heap_size_used_bytes',
      'chorus_process_resident_memory_bytes',
    ]) {
      family(name);
    }
    const byReason = new Map(
      family('chorus_decisions_total').metrics.map((m) => [m.labels?.reason ?? '', Number(m.value)]),
    );
    const expected = new Map<string, number>();
    for (const d of decisions) expected.set(d.reason, (expected.get(d.reason) ?? 0) + 1);
    assert.deepEqual(new Map([...byReason].sort()), new Map([...expected].sort()));
    assert.equal(Number(family('chorus_decision_latency_seconds').metrics[0]?.count), decisions.length);
    // One lag observation per pair the learn worker wrote, and the chat above learned some.
    const learned = service.corpus.learnWorker.counters.handled;
    assert.ok(learned > 0, 'the chat learned pairs');
    assert.equal(Number(family('chorus_learn_lag_seconds').metrics[0]?.count), learned);
    assert.deepEqual(
      family('chorus_queue_size')
        .metrics.map((m) => m.labels?.queue)
        .sort(),
      ['learning', 'mirror'],
    );
    assert.ok(
      family('chorus_component_counter').metrics.some((m) => m.labels?.part === 'bundle_cache'),
      'bundle-cache counters',
    );
  });
});
