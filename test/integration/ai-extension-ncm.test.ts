/**
 * The music-service (NCM) login proxy through the console over a real port, against a stand-in AI
 * service on loopback: the answer wrapper for JSON, non-JSON and empty answers and an unreachable
 * service; the status cache (fresh 3 s, then stale up to 30 s while one refresh runs) and its drop
 * by every login action, failed ones too; bad input named; no phone number or token in any log.
 */
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { FakeClock } from '../../src/common/clock.ts';
import { AiServiceStandIn } from '../fixtures/ai-service.ts';
import { freePort } from '../support/chorus-process.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN, type Harness } from '../unit/console/harness.ts';

const put = (h: Harness, body: unknown) => h.request('PUT', '/ai-extension/config', { token: WRITE_TOKEN, body });

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function standIn(t: TestContext): Promise<AiServiceStandIn> {
  const service = await AiServiceStandIn.start();
  t.after(() => service.close());
  return service;
}

describe('music-service login proxy (/ai-extension/ncm/*)', () => {
  it('wraps the AI answers, caches the status and drops it on every login action', async (t) => {
    const ai = await standIn(t);
    const h = await startHarness(t);
    await put(h, { base_url: ai.baseUrl, token: 'ncm-token' });
    const status = async () =>
      dataOf<Record<string, unknown>>(await h.request('GET', '/ai-extension/ncm/status', { token: READ_TOKEN }));

    const first = await status();
    assert.deepEqual(first, {
      ok: true,
      status_code: 200,
      url: `${ai.baseUrl}/api/ncm/login/status`,
      data: { code: 200, logged_in: false, profile: null },
      error: null,
    });
    await status();
    assert.equal(ai.count('/api/ncm/login/status'), 1, 'the second read came from the cache');

    const phone = '13912345678';
    const sent = dataOf<Record<string, unknown>>(
      await h.request('POST', '/ai-extension/ncm/send-sms', { token: WRITE_TOKEN, body: { phone } }),
    );
    assert.deepEqual([sent.ok, sent.status_code, sent.data], [true, 200, { code: 200, sent: true }]);
    const sentBody = ai.requests.find((request) => request.path.endsWith('/send-sms'));
    assert.deepEqual(sentBody?.body, { phone, ctcode: 86 });
    assert.equal(sentBody?.authorization, 'Bearer ncm-token');

    const wrong = dataOf<Record<string, unknown>>(
      await h.request('POST', '/ai-extension/ncm/verify-sms', {
        token: WRITE_TOKEN,
        body: { phone, captcha: '9999', ctcode: 86 },
      }),
    );
    assert.deepEqual([wrong.ok, wrong.status_code, wrong.error], [false, 400, 'HTTP 400']);
    assert.deepEqual(wrong.data, { code: 503, message: 'wrong code' });
    const verified = dataOf<Record<string, unknown>>(
      await h.request('POST', '/ai-extension/ncm/verify-sms', { token: WRITE_TOKEN, body: { phone, captcha: '1234' } }),
    );
    assert.equal(verified.ok, true);
    assert.equal(((await status()).data as { logged_in: boolean }).logged_in, true, 'the cache was dropped');
    assert.equal(ai.count('/api/ncm/login/status'), 2);

    assert.equal(
      dataOf<Record<string, unknown>>(await h.request('POST', '/ai-extension/ncm/logout', { token: WRITE_TOKEN })).ok,
      true,
    );
    assert.equal(((await status()).data as { logged_in: boolean }).logged_in, false);

    // Bad input is a 400 naming the field, without echoing the number.
    const bad = await h.request('POST', '/ai-extension/ncm/send-sms', {
      token: WRITE_TOKEN,
      body: { phone: '139-1234-5678' },
    });
    assert.equal(bad.status, 400);
    assert.match((bad.json as { detail: string }).detail, /body\.phone/);
    assert.ok(!bad.text.includes('1234-5678'));

    // The AI service gone: still a 200 wrapper, ok false; then no phone number in any log line.
    await put(h, { base_url: `http://127.0.0.1:${await freePort()}` });
    const down = dataOf<Record<string, unknown>>(
      await h.request('POST', '/ai-extension/ncm/send-sms', { token: WRITE_TOKEN, body: { phone } }),
    );
    assert.deepEqual([down.ok, down.status_code], [false, null]);
    assert.match(String(down.error), /ECONNREFUSED/);
    assert.ok(!h.logs().includes(phone) && !h.logs().includes('ncm-token'), 'no phone number or token in the log');
  });

  it('keeps the status 3 s, then serves it stale while one refresh runs, for up to 30 s more', async (t) => {
    const ai = await standIn(t);
    const clock = new FakeClock();
    const h = await startHarness(t, { clock });
    await put(h, { base_url: ai.baseUrl });
    const loggedIn = async () =>
      dataOf<{ data: { logged_in: boolean } }>(
        await h.request('GET', '/ai-extension/ncm/status', { token: READ_TOKEN }),
      ).data.logged_in;
    const asked = () => ai.count('/api/ncm/login/status');

    assert.equal(await loggedIn(), false);
    ai.ncmLoggedIn = true; // logged in elsewhere (not through Chorus): only time shows it
    clock.advance(2900);
    assert.equal(await loggedIn(), false);
    assert.equal(asked(), 1, 'fresh for 3 s');

    clock.advance(200);
    assert.equal(await loggedIn(), false, 'past 3 s the old answer is served at once');
    await waitFor(() => asked() === 2);
    assert.equal(await loggedIn(), true, 'and the refresh it started is served next');

    ai.ncmLoggedIn = false;
    clock.advance(3000 + 30_000 + 1);
    assert.equal(await loggedIn(), false, 'past the stale window the read waits for the AI service');
    assert.equal(asked(), 3);
  });

  it('a non-JSON answer is wrapped as {raw}, an empty one as {}, and a failed action still drops the status', async (t) => {
    const ai = await standIn(t);
    const h = await startHarness(t);
    await put(h, { base_url: ai.baseUrl });
    const status = async () =>
      dataOf<Record<string, unknown>>(await h.request('GET', '/ai-extension/ncm/status', { token: READ_TOKEN }));
    assert.equal((await status()).ok, true);

    ai.ncmRaw = { status: 502, contentType: 'text/html', body: '<html>Bad Gateway</html>' };
    const logout = await h.request('POST', '/ai-extension/ncm/logout', { token: WRITE_TOKEN });
    assert.equal(logout.status, 200, 'the console answers 200 whatever the AI service said');
    assert.deepEqual(dataOf(logout), {
      ok: false,
      status_code: 502,
      url: `${ai.baseUrl}/api/ncm/login/logout`,
      data: { raw: '<html>Bad Gateway</html>' },
      error: 'HTTP 502',
    });
    const after = await status();
    assert.deepEqual([after.ok, after.status_code, after.data], [false, 502, { raw: '<html>Bad Gateway</html>' }]);
    assert.equal(ai.count('/api/ncm/login/status'), 2, 'the failed logout dropped the cached status too');

    ai.ncmRaw = { status: 204, contentType: 'application/json', body: '' };
    const empty = dataOf<Record<string, unknown>>(
      await h.request('POST', '/ai-extension/ncm/send-sms', { token: WRITE_TOKEN, body: { phone: '13800001111' } }),
    );
    assert.deepEqual([empty.ok, empty.status_code, empty.data, empty.error], [true, 204, {}, null]);
  });
});
