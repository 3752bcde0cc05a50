/**
 * A phrase taught a moment ago answers at once, with the default settings (bundle caches on, a
 * 20 s negative cache, human-like delays): a scripted OneBot peer over a real WebSocket teaches
 * Q → A five times in one group, waits 1.5 s and asks Q again. The first Q was looked up and
 * missed; learning the pair must drop that cached miss (docs/rules.md#learn-visible).
 *
 * In a second group the cross-group rule applies: an answer learned in one group only is not used
 * there; once a second group has learned it too, a third group gets it.
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

const Q = '周末一起去爬山吗';
const A = '好呀带上零食';
const [G1, G2, G3] = [7101, 7102, 7103];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, find: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

it(
  'teach a pair, wait 1.5 s, ask: answered; the cross-group rule holds in other groups',
  { timeout: 120_000 },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'chorus-teach-'));
    const port = await freePort();
    const decisions: RepeaterDecision[] = [];
    let learned = 0;
    // Only what a test must set: where to listen and a console token. Everything else is default.
    const service = await startService({
      projectDir: dir,
      env: { CHORUS_PORT: String(port), CHORUS_CONSOLE_TOKEN: 'teach-then-ask-token' },
      logDestination: new Writable({ write: (_chunk, _encoding, done) => done() }),
      onDecision: (decision) => decisions.push(decision),
      onLearned: () => learned++,
    });
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: 40001 });
    t.after(async () => {
      await peer.close().catch(() => undefined);
      await service.stop();
      await rm(dir, { recursive: true, force: true });
    });
    let second = Math.floor(Date.now() / 1000) - 10_000;
    const say = (groupId: number, userId: number, text: string) =>
      peer.groupMessage({ groupId, userId, text, time: ++second });
    const decisionOn = (groupId: number, messageId: number) =>
      waitFor(`the decision on ${messageId}`, () =>
        decisions.find((d) => d.groupId === groupId && d.messageId === messageId),
      );
    const teach = async (groupId: number) => {
      for (let round = 0; round < 5; round++) {
        await decisionOn(groupId, say(groupId, 11, Q));
        await decisionOn(groupId, say(groupId, 12, A));
      }
    };
    // The 1.5 s a member might wait, and at least until what was taught is written: on a loaded
    // machine learning can lag past 1.5 s, and a lesson not yet written is not the cached miss
    // this test is about.
    const pause = async () => {
      await sleep(1_500);
      const queued = decisions.filter((d) => d.learn === 'queued').length;
      await waitFor(`${queued} lessons written`, () => (learned >= queued ? true : undefined), 30_000);
    };

    await teach(G1);
    const firstAsk = decisions.find((d) => d.groupId === G1 && d.keywords !== '' && d.outcome !== 'replied');
    assert.ok(firstAsk, 'the first Q was looked up and missed');
    await pause();
    for (let ask = 0; ask < 4; ask++) {
      say(G1, 13 + ask, Q);
      await sleep(300);
    }
    // With the default thresholds the bot may already answer while it is being taught (the fourth
    // Q finds the answer learned three times); either way A must be sent in G1. Before the fix, the
    // first Q's cached miss kept every later Q unanswered for 20 s.
    // Four members saying Q in a row is also a repeat the bot may join (docs/rules.md#rep-reply), and on a
    // busy machine its echo of Q can go out before A: wait for A, and allow only A or Q besides.
    // If that echo (or another early reply) went out first, the 5 s cool-down (from a send 2-5 s
    // late) holds the asks above: ask again, 6 s apart, until it has passed.
    const sentA = () => peer.sent.find((sent) => sent.groupId === G1 && sent.message === A);
    const early = await waitFor('A sent in G1', sentA, 7_000).catch(() => undefined);
    for (let retry = 0; !early && retry < 3 && !sentA(); retry++) {
      say(G1, 17 + retry, Q);
      await waitFor('A sent in G1 after the cool-down', sentA, 6_000).catch(() => undefined);
    }
    const inG1 = () =>
      decisions
        .filter((d) => d.groupId === G1)
        .map((d) => `${d.messageId}:${d.reason}${d.texts.length ? `=${d.texts.join('/')}` : ''}`)
        .join(', ');
    await waitFor('A sent in G1 after the cool-down', sentA, 8_000).catch((error: Error) => {
      throw new Error(
        `${error.message}; sent in G1: ${peer.sent
          .filter((m) => m.groupId === G1)
          .map((m) => m.message)
          .join(' | ')}; decided: ${inG1()}`,
      );
    });
    const saidInG1 = peer.sent.filter((sent) => sent.groupId === G1).map((sent) => sent.message);
    assert.ok(
      saidInG1.every((message) => message === A || message === Q),
      `the phrase taught seconds ago is answered with A (said: ${saidInG1.join(' | ')})`,
    );
    assert.ok(
      decisions.some((d) => d.groupId === G1 && d.outcome === 'replied' && d.texts.includes(A)),
      'decided as a reply from the corpus',
    );

    // Learned in G1 only: G2 does not use it (one group is not enough evidence).
    const inG2 = await decisionOn(G2, say(G2, 21, Q));
    assert.notEqual(inG2.outcome, 'replied');
    // Learned in G2 as well: now two groups agree, and a third group gets the answer.
    await teach(G2);
    await pause();
    const before = peer.sent.length;
    const inG3 = await decisionOn(G3, say(G3, 31, Q));
    assert.equal(inG3.outcome, 'replied', `decided ${inG3.reason}`);
    assert.deepEqual(inG3.texts, [A]);
    await waitFor('the reply in G3', () => peer.sent.slice(before).find((sent) => sent.groupId === G3));
  },
);
