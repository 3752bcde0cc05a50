/** Console tokens, session cookies and the login limiter. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsoleAuth, type ConsoleCredentials } from '../../../src/console/auth.ts';
import { LoginLimiter } from '../../../src/console/login-limiter.ts';
import { FakeClock } from '../../../src/common/clock.ts';

function setup(read = 'read-secret', write = 'write-secret') {
  const clock = new FakeClock();
  let credentials: ConsoleCredentials = { readToken: read, writeToken: write, sessionSecret: Buffer.alloc(32, 1) };
  const auth = new ConsoleAuth(
    () => credentials,
    () => clock.nowMs(),
  );
  return {
    clock,
    auth,
    change(next: Partial<ConsoleCredentials>) {
      credentials = { ...credentials, ...next };
    },
  };
}

describe('ConsoleAuth', () => {
  it('grants read or write by token, nothing to anything else', () => {
    const { auth } = setup();
    assert.equal(auth.levelOfToken('read-secret'), 'read');
    assert.equal(auth.levelOfToken('write-secret'), 'write');
    for (const wrong of ['', 'read-secre', 'read-secret ', 'WRITE-SECRET', 'x'.repeat(600)]) {
      assert.equal(auth.levelOfToken(wrong), null, JSON.stringify(wrong.slice(0, 20)));
    }
  });

  it('one token for both levels is write', () => {
    const { auth } = setup('same', 'same');
    assert.equal(auth.levelOfToken('same'), 'write');
  });

  it('a session records its level and ends after 72 h', () => {
    const { auth, clock } = setup();
    const read = auth.issueSession('read');
    const write = auth.issueSession('write');
    assert.match(read.value, /^v1\.[\w-]+\.[\w-]+$/);
    assert.deepEqual(auth.verifySession(read.value), read.session);
    assert.equal(auth.verifySession(write.value)?.level, 'write');
    assert.equal(read.session.expiresAt, Math.floor(clock.nowMs() / 1000) + 72 * 3600);
    clock.advance(72 * 3600 * 1000 - 1);
    assert.ok(auth.verifySession(read.value));
    clock.advance(1);
    assert.equal(auth.verifySession(read.value), null);
  });

  it('refuses forged, altered and malformed sessions', () => {
    const { auth } = setup();
    const { value } = auth.issueSession('read');
    const [version, payload, signature] = value.split('.') as [string, string, string];
    const upgraded = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), l: 'w' }),
    ).toString('base64url');
    for (const bad of [
      `${version}.${upgraded}.${signature}`,
      `v2.${payload}.${signature}`,
      `${version}.${payload}`,
      `${version}.${payload}.${signature}.x`,
      `${version}.${payload}.${signature.slice(0, -2)}`,
      `${version}.${payload}.${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`,
      '',
      'garbage',
    ]) {
      assert.equal(auth.verifySession(bad), null, bad);
    }
    const other = setup();
    other.change({ sessionSecret: Buffer.alloc(32, 2) });
    assert.equal(other.auth.verifySession(value), null, 'another secret');
  });

  it('changing a token ends the sessions made before', () => {
    const { auth, change } = setup();
    const { value } = auth.issueSession('write');
    change({ writeToken: 'rotated' });
    assert.equal(auth.verifySession(value), null);
    assert.equal(auth.levelOfToken('write-secret'), null);
    assert.equal(auth.levelOfToken('rotated'), 'write');
  });
});

describe('LoginLimiter', () => {
  it('allows maxFailures failures per address per window, then says how long to wait', () => {
    const clock = new FakeClock();
    const limiter = new LoginLimiter(
      () => ({ maxFailures: 2, windowMs: 60_000 }),
      () => clock.monotonicMs(),
      100,
    );
    assert.deepEqual(limiter.check('a'), { allowed: true });
    limiter.recordFailure('a');
    clock.advance(10_000);
    limiter.recordFailure('a');
    assert.deepEqual(limiter.check('a'), { allowed: false, retryAfterSec: 50 });
    assert.deepEqual(limiter.check('b'), { allowed: true }, 'per address');
    clock.advance(49_500);
    assert.deepEqual(limiter.check('a'), { allowed: false, retryAfterSec: 1 });
    clock.advance(500);
    assert.deepEqual(limiter.check('a'), { allowed: true }, 'a new window');
  });

  it('keeps at most maxAddresses, sweeping expired windows first', () => {
    const clock = new FakeClock();
    const limiter = new LoginLimiter(
      () => ({ maxFailures: 1, windowMs: 1000 }),
      () => clock.monotonicMs(),
      2,
    );
    limiter.recordFailure('a');
    limiter.recordFailure('b');
    limiter.recordFailure('c');
    assert.equal(limiter.check('a').allowed, true, 'the oldest address was dropped');
    assert.equal(limiter.check('c').allowed, false);
  });
});
