/**
 * Per-group and per-user controls in the repeater (docs/guide/groups.md), on a
 * fake clock: each field changes what the next message does, in its group only; the group
 * commands by an owner, an admin, a bot admin and a plain member.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  defaultGroupConfig,
  defaultUserConfig,
  type GroupConfig,
  type GroupConfigPatch,
  type UserConfig,
} from '../../../src/domain/chat-controls.ts';
import type { ChatControls } from '../../../src/repeater/group-controls.ts';
import {
  parseGroupCommand,
  silenceAck,
  LEARN_ACK,
  RESUME_ACK,
  STOP_LEARNING_ACK,
} from '../../../src/repeater/silence-command.ts';
import { contextWith, GROUP, repeaterHarness, type RepeaterHarness } from './support.ts';

const OTHER_GROUP = GROUP + 1;
const THIRD_GROUP = GROUP + 2;

class MemoryControls implements ChatControls {
  readonly groups = new Map<number, GroupConfig>();
  readonly users = new Map<number, UserConfig>();
  readonly saves: { groupId: number; patch: GroupConfigPatch }[] = [];
  group(groupId: number): GroupConfig {
    return this.groups.get(groupId) ?? defaultGroupConfig(groupId);
  }
  user(userId: number): UserConfig {
    return this.users.get(userId) ?? defaultUserConfig(userId);
  }
  saveGroup(groupId: number, patch: GroupConfigPatch): void {
    this.saves.push({ groupId, patch });
    this.setGroup(groupId, patch);
  }
  setGroup(groupId: number, patch: GroupConfigPatch): void {
    this.groups.set(groupId, { ...this.group(groupId), ...patch });
  }
  setUser(userId: number, patch: Partial<UserConfig>): void {
    this.users.set(userId, { ...this.user(userId), ...patch });
  }
}

function setup(): { h: RepeaterHarness; controls: MemoryControls } {
  const controls = new MemoryControls();
  const h = repeaterHarness({ controls, settings: { nicknames: ['合唱'] } });
  // "早上好" is answered with "你也早" in GROUP and in OTHER_GROUP (count 3 each).
  h.corpus.seed(
    contextWith('早上好', [
      ['你也早', GROUP, 3],
      ['你也早', OTHER_GROUP, 3],
    ]),
  );
  return { h, controls };
}

const nowSec = (h: RepeaterHarness) => Math.floor(h.clock.nowMs() / 1000);

describe('group controls', () => {
  it('reply off stops answers in that group at once and not in others; learning goes on', async () => {
    const { h, controls } = setup();
    assert.equal((await h.say({ plain: '早上好' })).outcome, 'replied');
    controls.setGroup(GROUP, { reply: false });
    const off = await h.say({ plain: '早上好' });
    assert.equal(off.reason, 'reply-off');
    assert.notEqual(off.learn, 'not-offered', 'still learned');
    assert.equal((await h.say({ groupId: OTHER_GROUP, plain: '早上好' })).outcome, 'replied');
    controls.setGroup(GROUP, { reply: true });
    assert.equal((await h.say({ plain: '早上好' })).outcome, 'replied');
  });

  it('learn off stops learning there, not elsewhere; answers go on', async () => {
    const { h, controls } = setup();
    controls.setGroup(GROUP, { learn: false });
    await h.say({ plain: '今天天气' });
    const here = await h.say({ plain: '早上好' });
    assert.deepEqual([here.learn, here.outcome], ['not-offered', 'replied']);
    await h.say({ groupId: OTHER_GROUP, plain: '今天天气' });
    assert.equal((await h.say({ groupId: OTHER_GROUP, plain: '明天下雨' })).learn, 'queued');
  });

  it("share off keeps a group's answers out of other groups' cross-group evidence", async () => {
    const { h, controls } = setup();
    // THIRD_GROUP has no answer of its own: two other groups agree (cross-group threshold 2).
    const before = await h.say({ groupId: THIRD_GROUP, plain: '早上好' });
    assert.deepEqual([before.outcome, before.reason], ['replied', 'cross-group']);
    controls.setGroup(OTHER_GROUP, { share: false });
    h.clock.advance(60_000);
    const after = await h.say({ groupId: THIRD_GROUP, plain: '早上好' });
    assert.equal(after.outcome, 'skipped', 'one sharing group is not enough');
    // Its own answers still count in the group itself.
    assert.equal((await h.say({ groupId: OTHER_GROUP, plain: '早上好' })).outcome, 'replied');
  });

  it('silence_until silences until the time passes', async () => {
    const { h, controls } = setup();
    controls.setGroup(GROUP, { silenceUntil: nowSec(h) + 60 });
    assert.equal((await h.say({ plain: '早上好' })).reason, 'silenced');
    assert.equal((await h.say({ groupId: OTHER_GROUP, plain: '早上好' })).outcome, 'replied');
    h.clock.advance(59_000);
    assert.equal((await h.say({ plain: '早上好' })).reason, 'silenced');
    h.clock.advance(2_000);
    await h.say({ plain: '换个话题' }); // not a third 早上好 in a row (that would be a repeat)
    assert.equal((await h.say({ plain: '早上好' })).outcome, 'replied');
  });

  it('banned ignores the group entirely: not logged, learned, answered or obeyed', async () => {
    const { h, controls } = setup();
    controls.setGroup(GROUP, { banned: true });
    assert.equal((await h.say({ plain: '早上好' })).reason, 'group-banned');
    assert.equal((await h.say({ plain: '合唱 闭嘴', senderRole: 'owner' })).reason, 'group-banned');
    assert.equal(h.repeater.messageLog.size, 0);
    assert.equal(h.repeater.window.recent(GROUP, 10).length, 0);
    assert.equal(controls.saves.length, 0);
  });

  it('the override answer threshold and cool-down are used in that group', async () => {
    const { h, controls } = setup();
    h.corpus.seed(contextWith('晚安啦', [['好梦', GROUP, 2]]));
    assert.equal((await h.say({ plain: '晚安啦' })).outcome, 'skipped', 'count 2 < threshold 3');
    controls.setGroup(GROUP, { answerThreshold: 2 });
    assert.equal((await h.say({ plain: '晚安啦' })).outcome, 'replied');
    controls.setGroup(GROUP, { answerThreshold: null, replyCooldownSec: 30 });
    assert.equal((await h.say({ plain: '早上好' })).outcome, 'replied');
    assert.equal((await h.say({ plain: '早上好' })).reason, 'cooldown');
    h.clock.advance(31_000);
    assert.equal((await h.say({ plain: '早上好' })).outcome, 'replied');
  });

  it('blocked members, banned users and other bots are neither learned nor answered', async () => {
    const { h, controls } = setup();
    controls.setGroup(GROUP, { blockedUserIds: [41] });
    controls.setUser(42, { banned: true });
    controls.setUser(43, { bot: true });
    const blocked = await h.say({ userId: 41, plain: '早上好' });
    assert.deepEqual([blocked.reason, blocked.learn], ['blocked-user', 'not-offered']);
    // Blocked in GROUP only.
    assert.equal((await h.say({ groupId: OTHER_GROUP, userId: 41, plain: '早上好' })).outcome, 'replied');
    for (const group of [GROUP, OTHER_GROUP]) {
      assert.equal((await h.say({ groupId: group, userId: 42, plain: '早上好' })).reason, 'user-banned');
    }
    // A bot's messages do not count for repeats: with the bot's line between them, two members'
    // identical lines are not yet a repeat (threshold 3); a third member's is.
    await h.say({ groupId: THIRD_GROUP, userId: 1, plain: '哈哈哈哈' });
    assert.equal((await h.say({ groupId: THIRD_GROUP, userId: 43, plain: '哈哈哈哈' })).reason, 'bot-user');
    const second = await h.say({ groupId: THIRD_GROUP, userId: 2, plain: '哈哈哈哈' });
    assert.notEqual(second.reason, 'repeat-done');
    assert.equal((await h.say({ groupId: THIRD_GROUP, userId: 3, plain: '哈哈哈哈' })).reason, 'repeat-done');
  });
});

describe('group commands', () => {
  it('parses 闭嘴 with minutes or hours (at most 24 h), 说话, 别学了 and 学习', () => {
    assert.deepEqual(parseGroupCommand('合唱闭嘴', ['合唱'], false), { kind: 'silence', seconds: 1800 });
    assert.deepEqual(parseGroupCommand('合唱 闭嘴 10分钟', ['合唱'], false), { kind: 'silence', seconds: 600 });
    assert.deepEqual(parseGroupCommand('合唱闭嘴2小时', ['合唱'], false), { kind: 'silence', seconds: 7200 });
    assert.deepEqual(parseGroupCommand('合唱闭嘴 48小时', ['合唱'], false), { kind: 'silence', seconds: 86_400 });
    assert.equal(parseGroupCommand('合唱闭嘴 0分钟', ['合唱'], false), null);
    assert.equal(parseGroupCommand('合唱闭嘴 一会儿', ['合唱'], false), null);
    assert.deepEqual(parseGroupCommand('合唱 说话', ['合唱'], false), { kind: 'resume' });
    assert.deepEqual(parseGroupCommand('别学了', [], true), { kind: 'stop-learning' });
    assert.deepEqual(parseGroupCommand('合唱学习', ['合唱'], false), { kind: 'learn' });
    assert.equal(parseGroupCommand('闭嘴', ['合唱'], false), null, 'not addressed');
    assert.equal(silenceAck(600), '好的，我安静 10 分钟。');
    assert.equal(silenceAck(7200), '好的，我安静 2 小时。');
  });

  it('an admin silences for the asked time and it ends on its own; a member is ignored', async () => {
    const { h, controls } = setup();
    const refused = await h.say({ userId: 5, plain: '合唱 闭嘴 5分钟' });
    assert.equal(refused.reason, 'silence-refused');
    assert.equal(controls.saves.length, 0);
    const obeyed = await h.say({ userId: 6, senderRole: 'admin', plain: '合唱 闭嘴 5分钟' });
    assert.equal(obeyed.reason, 'silence-command');
    assert.deepEqual(controls.saves, [{ groupId: GROUP, patch: { silenceUntil: nowSec(h) + 300 } }]);
    await h.repeater.idle();
    assert.deepEqual(h.chat.texts(), [silenceAck(300)], 'confirmed; the member got no answer');
    assert.equal((await h.say({ plain: '早上好' })).reason, 'silenced');
    h.clock.advance(301_000);
    assert.equal((await h.say({ plain: '早上好' })).outcome, 'replied');
  });

  it('说话 lifts it; 别学了 and 学习 switch learning; the owner may, as a bot admin may', async () => {
    const { h, controls } = setup();
    await h.say({ senderRole: 'owner', plain: '合唱 闭嘴 1小时' });
    assert.equal((await h.say({ senderRole: 'owner', plain: '合唱 说话' })).reason, 'silence-command');
    assert.equal(controls.group(GROUP).silenceUntil, 0);
    assert.equal((await h.say({ plain: '早上好' })).outcome, 'replied');
    assert.equal((await h.say({ userId: 7, plain: '合唱 别学了' })).reason, 'learn-refused');
    assert.equal(controls.group(GROUP).learn, true);
    assert.equal((await h.say({ senderRole: 'admin', plain: '合唱 别学了' })).reason, 'learn-command');
    assert.equal(controls.group(GROUP).learn, false);
    assert.equal((await h.say({ plain: '随便说说' })).learn, 'not-offered');
    assert.equal(
      (await h.say({ senderRole: 'admin', raw: '[CQ:at,qq=10001] 学习', mentionsSelf: true })).reason,
      'learn-command',
    );
    assert.equal(controls.group(GROUP).learn, true);
    await h.repeater.idle();
    assert.deepEqual(
      h.chat.texts().filter((text) => text !== '你也早'),
      [silenceAck(3600), RESUME_ACK, STOP_LEARNING_ACK, LEARN_ACK],
    );
  });
});
