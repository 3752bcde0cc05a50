/**
 * An answer given in the same second as its phrase is learned against that phrase
 * (docs/rules.md#learn-predecessor): OneBot times are whole seconds, so the predecessor is the
 * message that arrived just before, not the newest one of an earlier second. A scripted OneBot
 * peer over a real WebSocket plays a busy group: each round some chatter, then the phrase P and
 * its answer A in one second. The corpus, read through the console API, holds A as the answer to
 * P and to nothing else; asked P, the bot answers A, and it says nothing else in that group.
 *
 * Set for a deterministic run: no reply delay or cool-down, and the answer threshold always 3, so
 * a pair learned once (what the chatter → A pairs were before the fix) is never answered.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { startService } from '../../src/app/service.ts';
import type { RepeaterDecision } from '../../src/repeater/index.ts';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort } from '../support/chorus-process.ts';

const TOKEN = 'same-second-token';
const GROUP = 7201;
const P = '晚上吃火锅还是烤肉';
const A = '火锅必须的';
const CHATTER = ['今天好热啊', '地铁又晚点了', '新番更新了没', '猫咪在窗台睡觉', '作业写完了吗', '明天要下雨'];

interface SearchPage {
  items: { keywords: string; answers: { keywords: string; count: number; messages: string[] }[] }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(
  what: string,
  find: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

it(
  'an answer in the same second as its phrase is learned for that phrase only, and answered',
  { timeout: 120_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-same-second-'));
    const port = await freePort();
    const decisions: RepeaterDecision[] = [];
    const service = await startService({
      projectDir: dir,
      env: {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: TOKEN,
        CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
        CHORUS_REPEATER_COOLDOWN_SEC: '0',
        CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
      },
      logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
      onDecision: (decision) => decisions.push(decision),
    });
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: 40002 });
    t.after(async () => {
      await peer.close().catch(() => undefined);
      await service.stop();
      await rm(dir, { recursive: true, force: true });
    });
    const answersTo = async (text: string): Promise<SearchPage['items']> => {
      const query = new URLSearchParams({ q: text, in: 'answer', match: 'prefix' });
      const response = await fetch(`${service.consoleUrl}api/corpus/search?${query}`, {
        headers: { 'x-chorus-token': TOKEN },
      });
      const body = (await response.json()) as { data: SearchPage; detail?: string };
      assert.equal(response.status, 200, body.detail);
      return body.data.items;
    };
    const decided = (messageId: number) =>
      waitFor(`the decision on ${messageId}`, () => decisions.find((d) => d.messageId === messageId));

    let second = Math.floor(Date.now() / 1000) - 20_000;
    const say = async (userId: number, text: string, time: number) =>
      decided(peer.groupMessage({ groupId: GROUP, userId, text, time }));
    const repliedA = (d: RepeaterDecision) => d.groupId === GROUP && d.outcome === 'replied' && d.texts.includes(A);

    let phraseKeywords = '';
    for (let round = 0; round < 5; round++) {
      await say(10 + round, CHATTER[round] as string, ++second);
      // The phrase and its answer in one second, from two members.
      phraseKeywords = (await say(21, P, ++second)).keywords;
      await say(22, A, second);
    }

    // All five pairs are written: A is the answer to P, learned five times, and to nothing else.
    const contexts = await waitFor('P → A learned five times', async () => {
      const found = await answersTo(A);
      const count = found
        .find((c) => c.keywords === phraseKeywords)
        ?.answers.find((a) => a.messages.includes(A))?.count;
      return count !== undefined && count >= 5 ? found : undefined;
    });
    assert.deepEqual(
      contexts.map((context) => context.keywords),
      [phraseKeywords],
      'no other message is taken for the one A answered',
    );

    // Asked P, the bot answers A (it may have done so already while being taught).
    if (!decisions.some(repliedA)) {
      await say(30, CHATTER[5] as string, ++second);
      const asked = await say(31, P, ++second);
      assert.deepEqual([asked.outcome, asked.texts], ['replied', [A]], `decided ${asked.reason}`);
    }
    const reply = await waitFor('A sent to the group', () => peer.sent.find((sent) => sent.groupId === GROUP));
    assert.equal(reply.message, A);
    const replies = decisions.filter((d) => d.groupId === GROUP && d.outcome === 'replied');
    assert.ok(
      replies.length > 0 && replies.every((d) => d.keywords === phraseKeywords && repliedA(d)),
      'only P is answered, with A',
    );
  },
);
