import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hotMessage } from '../../../src/hub/clean.ts';

describe('hub display helpers', () => {
  it('hotMessage keeps 120 characters and cuts longer ones to 117 and an ellipsis (code points)', () => {
    assert.equal(hotMessage('a'.repeat(120)), 'a'.repeat(120));
    assert.equal(hotMessage('a'.repeat(121)), `${'a'.repeat(117)}…`);
    const emoji = '😀'.repeat(120);
    assert.equal(hotMessage(emoji), emoji, '120 code points, 240 UTF-16 units');
  });
});
