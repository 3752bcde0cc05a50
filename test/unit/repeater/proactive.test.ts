/**
 * Proactive speech's rule (docs/repeater.md#proactive-speech): when a group counts as quiet, which of
 * its lines may be said, the per-group bookkeeping, and the background check against a real
 * repeater with a fake clock (the silence, the per-group switch, a fleet claim lost, a poke).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultGroupConfig, type GroupConfig } from '../../../src/domain/chat-controls.ts';
import type { ChatControls } from '../../../src/repeater/group-controls.ts';
import type { WindowMessage } from '../../../src/repeater/message-window.ts';
import { ProactiveSpeaker } from '../../../src/repeater/proactive.ts';
import {
  pickLines,
  proactiveOn,
  quietAfterMs,
  sayable,
  type LineFilter,
} from '../../../src/repeater/proactive-rule.ts';
import { QuietGroups } from '../../../src/repeater/quiet-groups.ts';
import { seededRandom } from '../../../src/repeater/random.ts';
import type { ClaimVerdict } from '../../../src/repeater/fleet-claim.ts';
import { BOT, GROUP, repeaterHarness, testSettings } from './support.ts';

const line = (rawMessage: string, keywords = rawMessage, userId = 1): WindowMessage => ({
  userId,
  rawMessage,
  keywords,
  isPlainText: true,
  time: 0,
  sequence: 0,
});

const filter = (overrides: Partial<LineFilter> = {}): LineFilter => ({
  nicknames: ['小合'],
  banned: () => false,
  guarded: () => false,
  saidKeywords: new Set(),
  random: seededRandom(3),
  ...overrides,
});

describe('quietAfterMs', () => {
  it('is the average interval × factor + floor, once ten messages give an average', () => {
    const times = Array.from({ length: 10 }, (_, i) => 1_000 + i * 30);
    assert.equal(quietAfterMs(times, 5, 600_000), (30 * 5 + 600) * 1000);
    assert.equal(quietAfterMs(times, 0, 2_000), 2_000, 'factor 0: the floor alone');
    assert.equal(quietAfterMs(times.slice(1), 5, 600_000), null, 'nine messages: no average yet');
    assert.equal(quietAfterMs(Array(10).fill(5), 5, 1_000), 1_000, 'all in one second: the floor');
  });

  it('follows the group switch, else the global default', () => {
    assert.equal(proactiveOn(null, false), false);
    assert.equal(proactiveOn(null, true), true);
    assert.equal(proactiveOn(true, false), true);
    assert.equal(proactiveOn(false, true), false);
  });
});

describe('pickLines', () => {
  it('never picks a banned, guarded, recently said, multi-line, addressed or card line', () => {
    assert.equal(sayable(line('hello'), filter()), true);
    assert.equal(sayable(line('two\nlines'), filter()), false);
    assert.equal(sayable(line('小合 你好'), filter()), false);
    assert.equal(sayable(line('[CQ:xml,data=x]'), filter()), false);
    assert.equal(sayable(line('/jrrp'), filter()), false, 'a command to another bot');
    assert.equal(sayable(line('.运势'), filter()), false, 'a command to another bot');
    assert.equal(sayable(line('[CQ:reply,id=1]hi'), filter()), false);
    assert.equal(sayable(line('no keywords', ''), filter()), false);
    assert.equal(sayable(line('bad'), filter({ banned: (k) => k === 'bad' })), false);
    assert.equal(sayable(line('dirty'), filter({ guarded: (raw) => raw === 'dirty' })), false);
    assert.equal(sayable(line('said'), filter({ saidKeywords: new Set(['said']) })), false);
  });

  it('picks one to two lines of different keywords, and none when nothing is sayable', () => {
    const messages = [line('a'), line('a'), line('b'), line('c'), line('x\ny')];
    const counts = new Map<number, number>();
    const random = seededRandom(11);
    for (let i = 0; i < 200; i++) {
      const picked = pickLines(messages, filter({ random }));
      counts.set(picked.length, (counts.get(picked.length) ?? 0) + 1);
      assert.equal(new Set(picked.map((m) => m.keywords)).size, picked.length, 'distinct keywords');
      assert.ok(picked.every((m) => m.rawMessage !== 'x\ny'));
    }
    assert.ok((counts.get(1) ?? 0) > 50 && (counts.get(2) ?? 0) > 50, JSON.stringify([...counts]));
    assert.deepEqual(pickLines([line('x\ny')], filter()), []);
  });

  it('draws a keyword group first, so a line said often is not favoured', () => {
    const messages = [...Array.from({ length: 9 }, () => line('often')), line('once')];
    const random = seededRandom(5);
    let once = 0;
    for (let i = 0; i < 400; i++) if (pickLines(messages, filter({ random }))[0]?.keywords === 'once') once++;
    assert.ok(once > 150 && once < 250, `once picked ${once} of 400`);
  });
});

describe('QuietGroups', () => {
  it('waits for a member message after the bot last spoke or the check handled it; keeps mutes', () => {
    const quiet = new QuietGroups();
    const woken: number[] = [];
    quiet.onWaiting = (groupId) => woken.push(groupId);
    quiet.observe({ groupId: 1, selfId: BOT, reason: 'no-context', outcome: 'skipped' }, 100);
    quiet.observe({ groupId: 1, selfId: BOT, reason: 'no-context', outcome: 'skipped' }, 150);
    assert.deepEqual(woken, [1, 1], 'told each member message');
    assert.deepEqual(
      [...quiet.waiting()].map(([id]) => id),
      [1],
    );
    quiet.handled(1, 200);
    assert.deepEqual([...quiet.waiting()], [], 'handled for this silence');
    quiet.observe({ groupId: 1, selfId: BOT, reason: 'no-context', outcome: 'skipped' }, 300);
    assert.equal([...quiet.waiting()].length, 1);
    assert.deepEqual(woken, [1, 1, 1]);
    quiet.observe({ groupId: 1, selfId: BOT, reason: 'self', outcome: 'skipped' }, 400);
    assert.deepEqual([...quiet.waiting()], [], 'the bot spoke last');
    quiet.observe({ groupId: 2, selfId: BOT, reason: 'duplicate-id', outcome: 'skipped' }, 500);
    assert.deepEqual([...quiet.waiting()], [], 'a duplicate is not a member speaking');

    quiet.mute(1, BOT, 1_000, 0);
    assert.equal(quiet.muted(1, BOT, 999), true);
    assert.equal(quiet.muted(1, BOT, 1_000), false);
    quiet.mute(1, 0, 5_000, 0);
    assert.equal(quiet.muted(1, BOT, 2_000), true, 'the whole group is muted');
    quiet.mute(1, 0, 0, 2_000);
    assert.equal(quiet.muted(1, BOT, 2_000), false, 'lifted');
    quiet.prune(1_000, 10_000);
    assert.deepEqual([...quiet.waiting()], [], 'pruned');
  });
});

function controls(config: Partial<GroupConfig>): ChatControls {
  return {
    group: (groupId) => ({ ...defaultGroupConfig(groupId), ...config }),
    user: (userId) => ({ userId, banned: false, bot: false, updatedAt: 0 }),
    saveGroup: () => undefined,
  };
}

async function chatted(options: { config: Partial<GroupConfig>; claim?: () => Promise<ClaimVerdict>; poke?: number }) {
  const proactive = { enabled: false, factor: 2, floorMs: 10_000, checkMs: 1_000, pokeProbability: options.poke ?? 0 };
  const h = repeaterHarness({
    settings: { proactive },
    controls: controls(options.config),
    ...(options.claim ? { claim: options.claim } : {}),
  });
  assert.equal(h.repeater.settings.proactive.floorMs, testSettings({ proactive }).proactive.floorMs);
  // Twelve lines, five seconds apart: quiet after 5 s × 2 + 10 s = 20 s.
  for (let i = 0; i < 12; i++) {
    await h.say({ plain: `第${i}句话题`, time: 1_700_000_000 + i * 5, userId: 20 + i });
    h.clock.advance(5_000);
  }
  const speaker = new ProactiveSpeaker({
    repeater: h.repeater,
    clock: h.clock,
    random: seededRandom(9),
    guarded: () => false,
    ...(options.claim ? { claim: options.claim } : {}),
  });
  return { h, speaker, proactive: () => h.decisions.filter((d) => d.reason.startsWith('proactive')) };
}

describe('ProactiveSpeaker', () => {
  it('speaks once the silence is long enough, once per silence, with a line of the group', async () => {
    const { h, speaker, proactive } = await chatted({ config: { proactive: true } });
    const spokenBefore = h.chat.sent.length;
    h.clock.advance(14_000); // 19 s since the last message
    await speaker.check();
    assert.deepEqual(proactive(), [], 'not yet');
    h.clock.advance(1_000);
    await speaker.check();
    await h.repeater.idle();
    const [said] = proactive();
    assert.equal(said?.reason, 'proactive');
    assert.equal(said?.groupId, GROUP);
    const sent = h.chat.sent.slice(spokenBefore).map((m) => m.message);
    assert.deepEqual(sent, said?.texts);
    assert.ok(
      sent.every((text) => /^第\d+句话题$/.test(text)),
      sent.join(),
    );
    assert.equal(h.repeater.decisions.get('proactive'), 1, 'counted');
    h.clock.advance(60_000);
    await speaker.check();
    assert.equal(proactive().length, 1, 'once per silence');
  });

  it('is off by default, and a group switched off stays quiet even when the default is on', async () => {
    const off = await chatted({ config: {} });
    off.h.clock.advance(60_000);
    await off.speaker.check();
    assert.deepEqual(off.proactive(), []);
    const switchedOff = await chatted({ config: { proactive: false } });
    switchedOff.h.repeater.applySettings(
      testSettings({ proactive: { ...switchedOff.h.repeater.settings.proactive, enabled: true } }),
    );
    switchedOff.h.clock.advance(60_000);
    await switchedOff.speaker.check();
    assert.deepEqual(switchedOff.proactive(), []);
  });

  it('a fleet claim lost to another process: skipped, nothing sent', async () => {
    let lose = false;
    const { h, speaker, proactive } = await chatted({
      config: { proactive: true },
      claim: async () => (lose ? 'lost' : 'won'),
    });
    lose = true;
    const sentBefore = h.chat.sent.length;
    h.clock.advance(60_000);
    await speaker.check();
    assert.equal(proactive()[0]?.cause?.code, 'proactive-claimed');
    assert.equal(h.chat.sent.length, sentBefore);
  });

  it('pokes a member who spoke lately when the poke chance says so', async () => {
    const { h, speaker } = await chatted({ config: { proactive: true }, poke: 1 });
    h.clock.advance(60_000);
    await speaker.check();
    await h.repeater.idle();
    const poke = h.chat.sent.at(-1)?.message ?? '';
    const match = /^\[CQ:poke,qq=(\d+)\]$/.exec(poke);
    assert.ok(match, poke);
    assert.ok(Number(match[1]) >= 20 && Number(match[1]) < 32);
  });
});
