/**
 * The liveness watch on a stand-in socket, with mocked timers: pings on the interval, a pong in
 * time keeps the connection, none within the timeout judges it dead; a heartbeat deadline of the
 * announced interval × the missed count, moved by each heartbeat; settings applied live.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import {
  LIVENESS_HEARTBEAT_DEADLINE_MIN_MS,
  LivenessWatch,
  livenessFailureText,
  type LivenessFailure,
  type LivenessSettings,
} from '../../../src/onebot/liveness.ts';

class FakeSocket extends EventEmitter {
  pings = 0;
  ping(): void {
    this.pings++;
  }
  pong(): void {
    this.emit('pong');
  }
}

const SETTINGS: LivenessSettings = { pingIntervalMs: 1000, pongTimeoutMs: 300, heartbeatMissedMax: 3 };

function watch(settings: LivenessSettings = SETTINGS) {
  const socket = new FakeSocket();
  const failures: LivenessFailure[] = [];
  let nowMs = 0;
  const liveness = new LivenessWatch(
    socket,
    settings,
    () => nowMs,
    (failure) => failures.push(failure),
  );
  const tick = (ms: number) => {
    nowMs += ms;
    mock.timers.tick(ms);
  };
  return { socket, failures, liveness, tick };
}

describe('LivenessWatch', () => {
  beforeEach(() => mock.timers.enable({ apis: ['setTimeout', 'setInterval'] }));
  afterEach(() => mock.timers.reset());

  it('pings every interval and stays alive while pongs come back in time', () => {
    const { socket, failures, liveness, tick } = watch();
    assert.equal(liveness.view.judgedBy, 'ping');
    tick(1000);
    for (let i = 1; i <= 5; i++) {
      assert.equal(socket.pings, i);
      tick(100);
      socket.pong();
      tick(900);
    }
    assert.deepEqual(failures, []);
    assert.notEqual(liveness.view.lastPongAt, null);
    liveness.stop();
  });

  it('judges a connection dead when a ping goes unanswered for the timeout, once', () => {
    const { socket, failures, tick } = watch();
    tick(1000);
    assert.equal(socket.pings, 1);
    tick(299);
    assert.deepEqual(failures, []);
    tick(1);
    assert.deepEqual(failures, [{ code: 'no_pong', timeoutMs: 300 }]);
    tick(10_000);
    assert.equal(failures.length, 1, 'reported once; no more pings after');
    assert.equal(socket.pings, 1);
    assert.equal(socket.listenerCount('pong'), 0);
  });

  it('while a ping waits for its pong, no second one is sent', () => {
    const { socket, failures, tick } = watch({ pingIntervalMs: 1000, pongTimeoutMs: 2500, heartbeatMissedMax: 3 });
    // (Mocked timers date a timer set during a tick from the tick's end: ticks end on the pings.)
    tick(1000);
    tick(1000);
    tick(1000);
    assert.equal(socket.pings, 1);
    tick(499);
    assert.deepEqual(failures, []);
    tick(1);
    assert.deepEqual(failures, [{ code: 'no_pong', timeoutMs: 2500 }]);
  });

  it('a heartbeat deadline of the announced interval times the missed count, moved by each heartbeat', () => {
    const { failures, liveness, tick } = watch({ pingIntervalMs: 0, pongTimeoutMs: 300, heartbeatMissedMax: 3 });
    assert.equal(liveness.view.judgedBy, 'none');
    liveness.heartbeat(500);
    assert.equal(liveness.view.judgedBy, 'heartbeat');
    for (let i = 0; i < 10; i++) {
      tick(1400);
      liveness.heartbeat(500);
    }
    assert.deepEqual(failures, [], 'a heartbeat within 3 × 500 ms each time');
    tick(1499);
    assert.deepEqual(failures, []);
    tick(1);
    assert.deepEqual(failures, [{ code: 'no_heartbeat', intervalMs: 500, missed: 3 }]);
    assert.equal(livenessFailureText(failures[0]!), 'no heartbeat for 3 intervals of 500 ms');
  });

  it('a heartbeat without an interval sets no deadline; a tiny interval gets the minimum', () => {
    const { failures, liveness, tick } = watch({ pingIntervalMs: 0, pongTimeoutMs: 300, heartbeatMissedMax: 3 });
    liveness.heartbeat(null);
    tick(60_000);
    assert.deepEqual(failures, []);
    liveness.heartbeat(1);
    tick(LIVENESS_HEARTBEAT_DEADLINE_MIN_MS - 1);
    assert.deepEqual(failures, []);
    tick(1);
    assert.deepEqual(failures, [{ code: 'no_heartbeat', intervalMs: 1, missed: 3 }]);
  });

  it('new settings restart the pings; stop() ends every timer', () => {
    const { socket, failures, liveness, tick } = watch();
    liveness.apply({ pingIntervalMs: 200, pongTimeoutMs: 100, heartbeatMissedMax: 3 });
    tick(200);
    assert.equal(socket.pings, 1);
    socket.pong();
    liveness.heartbeat(1000);
    liveness.stop();
    tick(60_000);
    assert.equal(socket.pings, 1);
    assert.deepEqual(failures, []);
  });
});
