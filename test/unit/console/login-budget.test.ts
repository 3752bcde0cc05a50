/**
 * The console-wide failure budget (src/console/login-budget.ts): failures from every address
 * count in one window; past the budget token checks are paced, whatever their token, until the
 * window ends.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LoginBudget } from '../../../src/console/login-budget.ts';

function budgetAt(start = 1_000_000) {
  let now = start;
  const budget = new LoginBudget(
    () => ({ budget: 5, windowMs: 60_000, spacingMs: 1000 }),
    () => now,
  );
  return { budget, advance: (ms: number) => (now += ms) };
}

describe('LoginBudget', () => {
  it('admits every check below the budget, then one per spacing until the window ends', () => {
    const { budget, advance } = budgetAt();
    for (let i = 0; i < 4; i++) {
      assert.deepEqual(budget.admit(), { allowed: true });
      assert.equal(budget.recordFailure(), false);
    }
    assert.deepEqual(budget.admit(), { allowed: true });
    assert.equal(budget.recordFailure(), true, 'the fifth failure uses the budget up');
    assert.equal(budget.slowed(), true);
    assert.deepEqual(budget.admit(), { allowed: false, retryAfterSec: 1 }, 'the next check waits its turn');
    advance(400);
    assert.deepEqual(budget.admit(), { allowed: false, retryAfterSec: 1 });
    advance(600);
    assert.deepEqual(budget.admit(), { allowed: true }, 'after a short wait a check goes ahead');
    assert.deepEqual(budget.admit(), { allowed: false, retryAfterSec: 1 }, 'and takes the turn');
    assert.deepEqual(budget.stats(), {
      failures_in_window: 5,
      budget: 5,
      slowed: true,
      failures_total: 5,
      slowed_refusals: 3,
    });
    advance(59_000);
    assert.equal(budget.slowed(), false, 'a new window starts unslowed');
    assert.deepEqual(budget.admit(), { allowed: true });
    assert.deepEqual(budget.admit(), { allowed: true });
    assert.equal(budget.recordFailure(), false);
    assert.equal(budget.stats().failures_in_window, 1);
    assert.equal(budget.stats().failures_total, 6);
  });

  it('a failure-free console is never slowed', () => {
    const { budget } = budgetAt(0);
    for (let i = 0; i < 100; i++) assert.deepEqual(budget.admit(), { allowed: true });
    assert.deepEqual(budget.stats(), {
      failures_in_window: 0,
      budget: 5,
      slowed: false,
      failures_total: 0,
      slowed_refusals: 0,
    });
  });
});
