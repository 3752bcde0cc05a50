/** Forward-WebSocket targets: the address check, the masked form, the token, the ids and the back-off. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkForwardUrl, onebotSection } from '../../../src/config/sections/onebot.ts';
import { maskedUrl, retryDelayMs, TargetIds, tokenOf } from '../../../src/onebot/forward-target.ts';
import { ONEBOT_FORWARD_RETRY_FIRST_MS, ONEBOT_FORWARD_RETRY_MAX_MS } from '../../../src/onebot/limits.ts';

const connectField = onebotSection.fields.find((field) => field.env === 'CHORUS_ONEBOT_CONNECT');

describe('forward WebSocket targets', () => {
  it('accepts ws:// and wss:// addresses and refuses others without repeating them', () => {
    assert.deepEqual(checkForwardUrl('ws://127.0.0.1:3001?access_token=abc'), {
      ok: true,
      value: 'ws://127.0.0.1:3001/?access_token=abc',
    });
    assert.equal(checkForwardUrl('wss://bot.example.org/onebot').ok, true);
    for (const bad of [
      'http://127.0.0.1:3001',
      'not an address',
      'ws://user:secret-pw@host:1',
      'ws://h:1?access_token=a b',
    ]) {
      const checked = checkForwardUrl(bad);
      assert.equal(checked.ok, false, bad);
      assert.ok(!checked.ok && !checked.problem.includes('secret-pw'), 'the problem never repeats the address');
    }
  });

  it('reads CHORUS_ONEBOT_CONNECT as comma-separated addresses, names the bad item, drops duplicates', () => {
    assert.ok(connectField);
    const parsed = connectField.parse('ws://a:1?access_token=x, ws://b:2 ,ws://a:1?access_token=x');
    assert.deepEqual(parsed, { ok: true, value: ['ws://a:1/?access_token=x', 'ws://b:2/'] });
    const bad = connectField.parse('ws://a:1,ftp://b');
    assert.equal(bad.ok, false);
    assert.match(!bad.ok ? bad.problem : '', /^item 2: expected a ws:\/\/ or wss:\/\/ address/);
    assert.equal(connectField.secret, true, 'addresses carry tokens: a secret');
  });

  it('masks the token wherever the address is logged or shown, and presents it as given', () => {
    const href = 'ws://127.0.0.1:3001/?access_token=s3cr3t&x=1';
    assert.equal(maskedUrl(href), 'ws://127.0.0.1:3001/?access_token=***&x=1');
    assert.equal(maskedUrl('ws://h:1/'), 'ws://h:1/');
    assert.equal(tokenOf(href), 's3cr3t');
    assert.equal(tokenOf('ws://h:1/'), null);
  });

  it('gives ids that are stable in a process, differ by address and do not contain it', () => {
    const ids = new TargetIds();
    const href = 'ws://127.0.0.1:3001/?access_token=s3cr3t';
    assert.equal(ids.of(href), ids.of(href));
    assert.notEqual(ids.of(href), ids.of('ws://127.0.0.1:3002/'));
    assert.notEqual(ids.of(href), new TargetIds().of(href), 'keyed per process');
    assert.match(ids.of(href), /^[0-9a-f]{16}$/);
  });

  it('backs off by doubling from the first delay, with jitter, never above the cap', () => {
    const middle = () => 0.5;
    assert.equal(retryDelayMs(1, middle), ONEBOT_FORWARD_RETRY_FIRST_MS);
    assert.equal(retryDelayMs(2, middle), 2 * ONEBOT_FORWARD_RETRY_FIRST_MS);
    assert.equal(retryDelayMs(3, middle), 4 * ONEBOT_FORWARD_RETRY_FIRST_MS);
    assert.equal(
      retryDelayMs(1, () => 0),
      0.8 * ONEBOT_FORWARD_RETRY_FIRST_MS,
    );
    for (const failures of [7, 20, 1000]) {
      assert.equal(
        retryDelayMs(failures, () => 0.999),
        ONEBOT_FORWARD_RETRY_MAX_MS,
        `${failures} failures`,
      );
    }
  });
});
