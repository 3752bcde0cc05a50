/**
 * GET /chat-controls/stream, end to end on both engines: two Chorus services on one database (two
 * processes of one deployment), a reader on A's stream with the read token. A save in B's console,
 * a 「闭嘴」 said in chat to A's account over a real WebSocket, and a user banned in B each arrive as
 * an event with the config as it now is, within 2 s (the times are printed as RESULT).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { requirePostgres } from '../support/engines.ts';
import { pgSchema, save, startControlsService, type ControlsService } from '../support/controls-service.ts';

const BOT = 62101;
const GROUP = 7301;
const USER = 7399;
const LIVE_MS = 2000;

interface StreamEvent {
  type: 'ready' | 'group' | 'user';
  group?: { group_id: number; reply: boolean; silence_until: number };
  user?: { user_id: number; banned: boolean };
}

/** Reads a service's control stream with its read token; `next` waits for a matching event. */
async function readStream(s: ControlsService) {
  const abort = new AbortController();
  const response = await fetch(`http://127.0.0.1:${s.port}/chorus/api/chat-controls/stream`, {
    headers: { 'x-chorus-token': `controls-read-${s.port}` },
    signal: abort.signal,
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events: StreamEvent[] = [];
  const waiters = new Set<() => void>();
  const reading = (async () => {
    const decoder = new TextDecoder();
    let text = '';
    for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
      text += decoder.decode(chunk, { stream: true });
      let end: number;
      while ((end = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, end);
        text = text.slice(end + 2);
        const data = block.split('\n').find((line) => line.startsWith('data: '));
        if (data) events.push(JSON.parse(data.slice(6)) as StreamEvent);
        for (const wake of waiters) wake();
      }
    }
  })().catch(() => undefined);
  return {
    async next(what: string, match: (event: StreamEvent) => boolean, timeoutMs = 10_000): Promise<StreamEvent> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const index = events.findIndex(match);
        if (index >= 0) return events.splice(0, index + 1).at(-1) as StreamEvent;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no ${what} event within ${timeoutMs} ms`);
        await new Promise<void>((resolve) => {
          const wake = () => (waiters.delete(wake), clearTimeout(timer), resolve());
          const timer = setTimeout(wake, left);
          waiters.add(wake);
        });
      }
    },
    async close() {
      abort.abort();
      await reading;
    },
  };
}

for (const engine of ['sqlite', 'postgres'] as const) {
  it(`control changes reach another process's stream within 2 s (${engine})`, { timeout: 90_000 }, async (t) => {
    if (engine === 'postgres' && !requirePostgres(t)) return;
    const schema = engine === 'postgres' ? await pgSchema() : null;
    const a = await startControlsService(t, {}, schema?.url ?? '', true);
    // SQLite: B opens A's database file (its data folder), as a second process on one host would.
    const b = await startControlsService(
      t,
      engine === 'sqlite' ? { CHORUS_DATA_DIR: a.service.config.current().dataDir } : {},
      schema?.url ?? '',
      true,
    );
    const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${a.port}/onebot/v11/ws`, selfId: BOT });
    const stream = await readStream(a);
    t.after(async () => {
      await stream.close();
      await peer.close().catch(() => undefined);
      await b.stop();
      await a.stop();
      await schema?.drop();
    });
    await stream.next('ready', (event) => event.type === 'ready');
    const results: string[] = [];

    // A save in another process's console.
    let started = Date.now();
    await save(b, `/group-configs/${GROUP}`, { reply: false });
    const saved = await stream.next('group', (e) => e.group?.group_id === GROUP && e.group.reply === false);
    results.push(`save in B ${Date.now() - started} ms`);
    assert.ok(Date.now() - started <= LIVE_MS, results.join('; '));
    assert.equal(saved.group?.silence_until, 0);

    // 「闭嘴」 in chat, by the group's owner, to A's account.
    await save(a, `/bot-configs/${BOT}`, { nicknames: ['小合'] });
    started = Date.now();
    peer.groupMessage({ groupId: GROUP, userId: 8002, role: 'owner', text: '小合 闭嘴' });
    const silenced = await stream.next('silence', (e) => (e.group?.silence_until ?? 0) > Date.now() / 1000);
    results.push(`「闭嘴」 in chat ${Date.now() - started} ms`);
    assert.ok(Date.now() - started <= LIVE_MS, results.join('; '));
    assert.equal(silenced.group?.reply, false, 'the whole config as it now is');

    // A user banned in another process.
    started = Date.now();
    await save(b, `/user-configs/${USER}`, { banned: true });
    const banned = await stream.next('user', (e) => e.user?.banned === true);
    results.push(`user banned in B ${Date.now() - started} ms`);
    assert.ok(Date.now() - started <= LIVE_MS, results.join('; '));
    // A read session sees the member as a stand-in, as GET /user-configs shows it (never the number).
    assert.ok((banned.user?.user_id ?? 0) < 0, `read level: a stand-in, not ${banned.user?.user_id}`);
    console.log(`RESULT chat-control stream (${engine}): ${results.join('; ')}`);
  });
}
