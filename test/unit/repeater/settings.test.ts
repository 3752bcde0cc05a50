/** The repeater config section and the settings derived from it. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configFromValues } from '../../../src/config/index.ts';
import { DEFAULT_REPEATER_SETTINGS, fromRepeaterConfig } from '../../../src/repeater/settings.ts';

describe('repeater settings', () => {
  it('defaults: threshold 3 with weights 7/23/70, cross-group 2, cool-down 5 s, delays 2-5 s and 1-3 s, 0.8 s', () => {
    const settings = fromRepeaterConfig(configFromValues({}).repeater);
    assert.deepEqual(
      { ...settings, ignoreUserIds: [...settings.ignoreUserIds] },
      {
        ...DEFAULT_REPEATER_SETTINGS,
        ignoreUserIds: [],
      },
    );
  });

  it('parses ranges, weights, id lists and lower-cases nicknames', () => {
    const settings = fromRepeaterConfig(
      configFromValues({
        CHORUS_REPEATER_REPLY_DELAY_SEC: '0',
        CHORUS_REPEATER_SPLIT_DELAY_SEC: ' 0.5 - 1 ',
        CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '1, 2',
        CHORUS_REPEATER_IGNORE_USER_IDS: '123, 456|abc',
        CHORUS_REPEATER_NICKNAMES: 'Chorus|小合',
        CHORUS_REPEATER_COOLDOWN_SEC: '0',
      }).repeater,
    );
    assert.deepEqual(settings.replyDelay, { minMs: 0, maxMs: 0 });
    assert.deepEqual(settings.splitDelay, { minMs: 500, maxMs: 1000 });
    assert.deepEqual(settings.answerThresholdWeights, [1, 2]);
    assert.deepEqual([...settings.ignoreUserIds], [123, 456]);
    assert.deepEqual(settings.nicknames, ['chorus', '小合']);
    assert.equal(settings.cooldownMs, 0);
  });

  it('refuses bad ranges and weights', () => {
    assert.throws(() => configFromValues({ CHORUS_REPEATER_REPLY_DELAY_SEC: '5-2' }));
    assert.throws(() => configFromValues({ CHORUS_REPEATER_REPLY_DELAY_SEC: 'soon' }));
    assert.throws(() => configFromValues({ CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0' }));
    assert.throws(() => configFromValues({ CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '1,-1' }));
  });
});
