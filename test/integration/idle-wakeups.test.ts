/**
 * An idle service stays asleep (docs/rules.md#idle-quiet): a real `chorus serve` on SQLite with a
 * scripted OneBot account connected and no traffic. Counted are the main thread's wake-ups (its
 * voluntary context switches, from /proc), which a busy machine does not change the way it changes
 * CPU time: before, the event-loop monitor alone woke it 100 times a second, the change feed and
 * the chat-log flush on top. CPU itself is measured by `npm run bench:idle` over 60 s.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort, runChorus } from '../support/chorus-process.ts';

/** Wake-ups a second allowed; an implementation's heartbeat and a 1 s sampler fit well within it. */
const MAX_WAKEUPS_PER_SEC = 20;
const WINDOW_MS = 5_000;
/** Start-up work (the first checkpoint, the account's first calls) settles within a few windows. */
const WINDOWS = 8;

const wakeups = (pid: number): number =>
  Number(/^voluntary_ctxt_switches:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8'))?.[1]);

it(
  'an idle service with an account connected wakes a few times a second, not a hundred',
  { timeout: 240_000 },
  async (t) => {
    if (!existsSync('/proc/self/status')) {
      t.skip('needs /proc (Linux)');
      return;
    }
    const dir = await mkdtemp(join(tmpdir(), 'chorus-idle-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const port = await freePort();
    const chorus = runChorus(['serve', '--no-supervise', '--project-dir', dir], {
      CHORUS_PORT: String(port),
      CHORUS_CONSOLE_TOKEN: 'idle-console-token',
    });
    t.after(async () => {
      chorus.child.kill('SIGTERM');
      await chorus.exited;
    });
    await chorus.waitFor(/console listening at/, 120_000);
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId: 40_001 });
    t.after(() => peer.close());
    const health = (await (await fetch(`http://127.0.0.1:${port}/chorus/api/health`)).json()) as {
      onebot: { connected_bots: number };
    };
    assert.equal(health.onebot.connected_bots, 1);

    const pid = chorus.child.pid ?? 0;
    const rates: number[] = [];
    for (let window = 0; window < WINDOWS; window++) {
      const before = wakeups(pid);
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
      rates.push(((wakeups(pid) - before) * 1000) / (performance.now() - started));
      if (rates.at(-1)! < MAX_WAKEUPS_PER_SEC) break;
    }
    t.diagnostic(`wake-ups per second, window by window: ${rates.map((rate) => rate.toFixed(1)).join(', ')}`);
    assert.ok(rates.at(-1)! < MAX_WAKEUPS_PER_SEC, `never under ${MAX_WAKEUPS_PER_SEC}/s: ${rates.join(', ')}`);
  },
);
