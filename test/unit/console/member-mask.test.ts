/** Member numbers at the read level (docs/rules.md#console-member-numbers): the stand-ins and the copy. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskMembers, memberStandIn } from '../../../src/console/member-mask.ts';

describe('member stand-ins', () => {
  it('a member number becomes a negative stand-in, the same each time; no member (0) stays 0', () => {
    const first = memberStandIn(2345671);
    assert.ok(Number.isSafeInteger(first) && first < 0, String(first));
    assert.equal(memberStandIn(2345671), first);
    assert.notEqual(memberStandIn(2345672), first);
    assert.equal(memberStandIn(0), 0);
    assert.equal(memberStandIn(first), first, 'a stand-in is not masked again');
  });

  it('masks member keys at any depth and mentions in text, leaves groups and accounts, and copies', () => {
    const answer = {
      group_id: 301,
      self_id: 10001,
      decisions: [{ user_id: 2345671, raw_message: '[CQ:at,qq=2345673] 你好 [CQ:at,qq=all]', count: 2345671 }],
      config: { blocked_user_ids: [2345674, 2345675] },
      fields: { user: 2345671, group: 301 },
      actor: { user_id: '2345676' },
    };
    const before = structuredClone(answer);
    const masked = maskMembers(answer);
    assert.deepEqual(answer, before, 'the value itself is not changed (it may be a shared cached answer)');
    assert.equal(masked.group_id, 301);
    assert.equal(masked.self_id, 10001);
    assert.equal(masked.decisions[0]?.user_id, memberStandIn(2345671));
    assert.equal(masked.decisions[0]?.count, 2345671, 'a number under another key is not a member');
    assert.equal(masked.decisions[0]?.raw_message, `[CQ:at,qq=${memberStandIn(2345673)}] 你好 [CQ:at,qq=all]`);
    assert.deepEqual(masked.config.blocked_user_ids, [memberStandIn(2345674), memberStandIn(2345675)]);
    assert.deepEqual(masked.fields, { user: memberStandIn(2345671), group: 301 });
    assert.equal(masked.actor.user_id, String(memberStandIn(2345676)));
  });
});
