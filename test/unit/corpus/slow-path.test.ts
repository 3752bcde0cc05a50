import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Log } from '../../../src/common/log.ts';
import { harness } from '../../support/corpus-fakes.ts';

/** A log that keeps its warnings. */
function recordingLog(): Log & { warnings: { object: Record<string, unknown>; message: string | undefined }[] } {
  const warnings: { object: Record<string, unknown>; message: string | undefined }[] = [];
  return {
    warnings,
    debug() {},
    info() {},
    error() {},
    warn(object, message) {
      warnings.push({ object: object as Record<string, unknown>, message });
    },
  };
}

describe('slow-path logging (docs/rules.md#slow-log)', () => {
  it('logs an existence check of 30 ms or more, at most once a minute, counting what it held back', async () => {
    const log = recordingLog();
    const h = harness({ log });
    let delayMs = 29;
    h.local.override.contextExistsByKeywords = async () => {
      h.clock.advance(delayMs);
      return false;
    };
    await h.composite.localContextExistsByKeywords('k');
    assert.equal(log.warnings.length, 0, '29 ms is under the threshold');
    delayMs = 30;
    await h.composite.localContextExistsByKeywords('k');
    assert.equal(log.warnings.length, 1);
    assert.match(log.warnings[0]?.message ?? '', /slow corpus exists/);
    assert.equal(log.warnings[0]?.object.ms, 30);
    await h.composite.localContextExistsByKeywords('k');
    await h.composite.localContextExistsByKeywords('k');
    assert.equal(log.warnings.length, 1, 'rate limited within the minute');
    h.clock.advance(60_000);
    await h.composite.localContextExistsByKeywords('k');
    assert.equal(log.warnings.length, 2);
    assert.equal(log.warnings[1]?.object.suppressed, 2);
  });

  it('logs a merged find of 80 ms or more, and not one of 79 ms', async () => {
    const log = recordingLog();
    const h = harness({ log });
    let delayMs = 79;
    h.local.override.findByKeywords = async () => {
      h.clock.advance(delayMs);
      return null;
    };
    await h.composite.findByKeywords('a');
    assert.equal(log.warnings.length, 0);
    delayMs = 80;
    await h.composite.findByKeywords('b');
    assert.equal(log.warnings.length, 1);
    assert.match(log.warnings[0]?.message ?? '', /slow corpus find/);
  });
});
