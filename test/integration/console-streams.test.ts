/**
 * Event streams are bounded per client and in all (docs/guide/troubleshooting.md#limits, src/console/limits.ts
 * EVENT_STREAMS) over real HTTP: the stream past a cap is a 429 with a code, a closed socket frees
 * its slot, /health counts them and stays fast while the caps are held.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EVENT_STREAMS } from '../../src/console/limits.ts';
import { SseClient } from '../support/sse-client.ts';
import { READ_TOKEN, startHarness, type Harness } from '../unit/console/harness.ts';

interface StreamHealth {
  console?: { event_streams: { open: number; refused: number } };
}

async function streamsOnHealth(h: Harness): Promise<{ open: number; refused: number }> {
  const health = (await h.request('GET', '/health')).json as StreamHealth;
  assert.ok(health.console, 'the console part of /health');
  return health.console.event_streams;
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('event stream limits over HTTP', () => {
  it('refuses the stream past the per-client and the total cap with 429, frees a slot on close, keeps /health fast', async (t) => {
    // A trusted proxy, so each X-Forwarded-For is a client of its own.
    const h = await startHarness(t, { env: { CHORUS_TRUST_PROXY: '127.0.0.1' } });
    const opened: SseClient[] = [];
    t.after(() => opened.forEach((stream) => stream.close()));
    const open = async (client: string): Promise<SseClient> => {
      const stream = SseClient.open(`${h.api}/logs/stream`, {
        'x-chorus-token': READ_TOKEN,
        'x-forwarded-for': client,
      });
      opened.push(stream);
      await stream.waitUntil(() => stream.status !== 0 || stream.ended);
      return stream;
    };
    const refusal = async (client: string) => {
      const reply = await h.request('GET', '/logs/stream', {
        token: READ_TOKEN,
        headers: { 'x-forwarded-for': client },
      });
      assert.equal(reply.status, 429, `${client}: ${reply.text.slice(0, 200)}`);
      assert.ok(Number(reply.headers.get('retry-after')) > 0, 'Retry-After');
      return reply.json as { code: string; params: { scope: string; limit: number } };
    };

    const first: SseClient[] = [];
    for (let i = 0; i < EVENT_STREAMS.perClient; i++) {
      const stream = await open('203.0.113.1');
      assert.equal(stream.status, 200);
      await stream.waitFor((event) => event.data.type === 'ready');
      first.push(stream);
    }
    const perClient = await refusal('203.0.113.1');
    assert.equal(perClient.code, 'too_many_streams');
    assert.deepEqual(perClient.params, { scope: 'client', limit: EVENT_STREAMS.perClient });
    assert.deepEqual(await streamsOnHealth(h), { open: EVENT_STREAMS.perClient, refused: 1 });

    // A closed socket frees its slot.
    first[0]?.close();
    await until('the slot to be freed', async () => (await streamsOnHealth(h)).open === EVENT_STREAMS.perClient - 1);
    const again = await open('203.0.113.1');
    assert.equal(again.status, 200);

    // Other clients fill the rest; then nobody gets one more.
    for (let client = 2; (await streamsOnHealth(h)).open < EVENT_STREAMS.total; client++) {
      const stream = await open(`203.0.113.${client}`);
      assert.equal(stream.status, 200);
    }
    const total = await refusal('198.51.100.77');
    assert.deepEqual(total.params, { scope: 'total', limit: EVENT_STREAMS.total });
    assert.equal((await streamsOnHealth(h)).open, EVENT_STREAMS.total);

    // With every slot held, /health still answers fast (the bound: under 100 ms).
    const timings: number[] = [];
    for (let i = 0; i < 15; i++) {
      const started = performance.now();
      assert.equal((await h.request('GET', '/health')).status, 200);
      timings.push(performance.now() - started);
    }
    timings.sort((a, b) => a - b);
    const median = timings[Math.floor(timings.length / 2)] ?? Infinity;
    t.diagnostic(
      `/health median ${median.toFixed(1)} ms, slowest ${timings.at(-1)?.toFixed(1)} ms, ${EVENT_STREAMS.total} streams held`,
    );
    assert.ok(median < 100, `/health median ${median.toFixed(1)} ms with ${EVENT_STREAMS.total} streams held`);
  });
});
