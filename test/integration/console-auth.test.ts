/**
 * Console authentication over a real loopback port: the matrix over every operation of the live
 * OpenAPI document, the envelope on every JSON answer, session cookies and their levels, and the
 * login rate limit (docs/rules.md#console-auth).
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FakeClock } from '../../src/common/clock.ts';
import { dataOf, READ_TOKEN, startHarness, WRITE_TOKEN, type Harness, type Reply } from '../unit/console/harness.ts';

interface Operation {
  method: string;
  path: string;
  level: 'public' | 'read' | 'write';
  /** A server-sent-event stream (its 200 is text/event-stream, not an envelope). */
  stream: boolean;
}

const PUBLIC = ['GET /health', 'GET /openapi.json', 'POST /auth/login', 'POST /auth/logout', 'GET /auth/status'];

/** Values for path parameters, and a valid body for each operation that takes one. */
const PARAMS: Record<string, string> = {
  name: 'core',
  section_id: 'logging',
  account: '10001',
  id: 'no-such-job',
  group_id: '9001',
  user_id: '9002',
  self_id: '10001',
};
const BODIES: Record<string, unknown> = {
  'POST /auth/login': { token: READ_TOKEN },
  // Port 9 (discard) on loopback: nothing answers, so the AI routes answer their "unreachable" forms.
  'PUT /ai-extension/config': { base_url: 'http://127.0.0.1:9' },
  'POST /ai-extension/install': { action: 'bootstrap' },
  'POST /ai-extension/ncm/send-sms': { phone: '13800000000' },
  'POST /ai-extension/ncm/verify-sms': { phone: '13800000000', captcha: '1234' },
  'PUT /plugins/{name}/config': { values: { merge_strategy: 'merge_counts' } },
  'PUT /common-config/{section_id}': { values: { log_level: 'debug' } },
  'PUT /bot-configs/{account}': { security: true },
  'PUT /group-configs/{group_id}': { reply: false },
  'PUT /user-configs/{user_id}': { bot: true },
  'POST /request-actions': { self_id: 10001, kind: 'friend', user_id: 9002 },
  'POST /request-actions/batch': { friends: [{ self_id: 10001, user_id: 9002 }] },
};

async function operations(h: Harness): Promise<Operation[]> {
  const document = (await h.request('GET', '/openapi.json')).json as {
    paths: Record<
      string,
      Record<string, { security?: Record<string, string[]>[]; responses: Record<string, { content?: object }> }>
    >;
  };
  const found: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const security = operation.security ?? [];
      const roles = security.flatMap((requirement) => Object.values(requirement).flat());
      const level = security.length === 0 ? 'public' : roles.includes('write') ? 'write' : 'read';
      const stream = 'text/event-stream' in (operation.responses['200']?.content ?? {});
      found.push({ method: method.toUpperCase(), path, level, stream });
    }
  }
  return found;
}

/** Every console answer: no sniffing, no framing, and no caching of API data. */
function assertSecurityHeaders(label: string, reply: Reply): void {
  assert.equal(reply.headers.get('x-content-type-options'), 'nosniff', `${label}: nosniff`);
  assert.equal(reply.headers.get('x-frame-options'), 'DENY', `${label}: framing`);
  assert.equal(reply.headers.get('cache-control'), 'no-store', `${label}: cache-control`);
}

function call(h: Harness, op: Operation, options: { token?: string; cookie?: string } = {}): Promise<Reply> {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => PARAMS[name] ?? 'x');
  const body = BODIES[`${op.method} ${op.path}`];
  return h.request(op.method, path, { ...options, ...(body !== undefined ? { body } : {}) });
}

/** Every JSON answer is enveloped, except health and the OpenAPI document. */
function assertEnvelope(op: Operation, reply: Reply): void {
  const label = `${op.method} ${op.path} → ${reply.status}`;
  if (op.stream && reply.status === 200) {
    assert.match(reply.headers.get('content-type') ?? '', /^text\/event-stream/, `${label}: an event stream`);
    return;
  }
  // An attachment (the log export) and the Prometheus text are their own formats, not envelopes.
  if (reply.status === 200 && /^attachment/.test(reply.headers.get('content-disposition') ?? '')) return;
  if (reply.status === 200 && /^text\/plain/.test(reply.headers.get('content-type') ?? '')) return;
  assert.ok(reply.json !== undefined, `${label}: JSON body expected, got ${reply.text.slice(0, 100)}`);
  const body = reply.json as Record<string, unknown>;
  if (reply.status < 400 && (op.path === '/health' || op.path === '/openapi.json')) {
    assert.equal(body.ok, undefined, `${label}: not enveloped`);
    return;
  }
  assert.equal(typeof body.ok, 'boolean', `${label}: envelope`);
  if (body.ok === true) {
    assert.ok(reply.status < 400, label);
    assert.ok('data' in body, `${label}: data`);
  } else {
    assert.ok(reply.status >= 400, label);
    assert.equal(typeof body.detail, 'string', `${label}: detail`);
  }
}

describe('console auth matrix (every operation of the live OpenAPI document)', () => {
  it('public routes answer without credentials; the rest need read, write routes need write', async (t) => {
    // Every route is tried with a wrong token too: room for those failures under the address limit.
    const h = await startHarness(t, { env: { CHORUS_CONSOLE_LOGIN_MAX_FAILURES: '1000' } });
    const ops = await operations(h);
    assert.ok(ops.length >= 17, `found ${ops.length} operations`);
    assert.deepEqual(
      ops
        .filter((op) => op.level === 'public')
        .map((op) => `${op.method} ${op.path}`)
        .sort(),
      [...PUBLIC].sort(),
    );
    for (const op of ops) {
      const label = `${op.method} ${op.path}`;
      const anonymous = await call(h, op);
      assertEnvelope(op, anonymous);
      assertSecurityHeaders(label, anonymous);
      if (op.level === 'public') {
        assert.ok(![401, 403].includes(anonymous.status) && anonymous.status < 500, `${label}: ${anonymous.status}`);
        continue;
      }
      assert.equal(anonymous.status, 401, `${label} without credentials`);
      const forged = await call(h, op, { token: 'not-the-token' });
      assert.equal(forged.status, 401, `${label} with a wrong token`);
      assertEnvelope(op, forged);

      const read = await call(h, op, { token: READ_TOKEN });
      assertEnvelope(op, read);
      if (op.level === 'write') assert.equal(read.status, 403, `${label} with the read token`);
      else assert.ok(![401, 403].includes(read.status), `${label} with the read token: ${read.status}`);

      const write = await call(h, op, { token: WRITE_TOKEN });
      assertEnvelope(op, write);
      if (!op.stream) assertSecurityHeaders(label, write);
      assert.ok(![401, 403].includes(write.status), `${label} with the write token: ${write.status} ${write.text}`);
      assert.ok(write.status < 500, `${label}: ${write.status} ${write.text}`);
    }
    // Nothing secret reached the log.
    for (const secret of [READ_TOKEN, WRITE_TOKEN]) assert.ok(!h.logs().includes(secret), 'token in the log');
  });

  it('accepts ?token= at either level and rejects a read token on a write route with 403', async (t) => {
    const h = await startHarness(t);
    assert.equal((await h.request('GET', '/plugins', { query: { token: READ_TOKEN } })).status, 200);
    const body = { values: { merge_strategy: 'merge_counts' } };
    const readWrite = await h.request('PUT', '/plugins/core/config', { query: { token: READ_TOKEN }, body });
    assert.equal(readWrite.status, 403);
    assert.match((readWrite.json as { detail: string }).detail, /write/);
    const write = await h.request('PUT', '/plugins/core/config', { query: { token: WRITE_TOKEN }, body });
    assert.equal(write.status, 200, write.text);
  });

  it('without a write token the read token writes', async (t) => {
    const h = await startHarness(t, { tokens: false, env: { CHORUS_CONSOLE_TOKEN: READ_TOKEN } });
    const reply = await h.request('PUT', '/bot-configs/10001', { token: READ_TOKEN, body: { security: true } });
    assert.equal(reply.status, 200, reply.text);
  });

  it('unknown API routes answer 404 in the error shape, with or without credentials', async (t) => {
    const h = await startHarness(t);
    assertSecurityHeaders('404', await h.request('GET', '/no-such-route'));
    for (const token of [undefined, READ_TOKEN]) {
      const reply = await h.request('GET', '/no-such-thing', token ? { token } : {});
      assert.equal(reply.status, 404);
      assert.deepEqual(reply.json, {
        ok: false,
        detail: 'no such route: GET /chorus/api/no-such-thing',
        code: 'no_such_route',
        params: { method: 'GET', path: '/chorus/api/no-such-thing' },
      });
    }
  });
});

function sessionCookie(reply: Reply): string {
  const header = reply.headers.get('set-cookie') ?? '';
  const match = /chorus_console_session=([^;]*)/.exec(header);
  assert.ok(match, `a session cookie in ${header}`);
  return `chorus_console_session=${match[1]}`;
}

describe('console sessions', () => {
  it('login sets an HttpOnly, SameSite=Lax, 72 h cookie that records read or write level', async (t) => {
    const h = await startHarness(t);
    const readLogin = await h.request('POST', '/auth/login', { body: { token: READ_TOKEN } });
    assert.equal(dataOf<{ level: string }>(readLogin).level, 'read');
    const header = readLogin.headers.get('set-cookie') ?? '';
    assert.match(header, /HttpOnly/i);
    assert.match(header, /SameSite=Lax/i);
    assert.match(header, /Max-Age=259200/);
    assert.match(header, /Path=\/chorus(;|$)/);
    assert.doesNotMatch(header, /Secure/i, 'plain http: no Secure flag');
    const readCookie = sessionCookie(readLogin);

    assert.equal((await h.request('GET', '/plugins', { cookie: readCookie })).status, 200);
    const body = { values: { merge_strategy: 'merge_counts' } };
    assert.equal((await h.request('PUT', '/plugins/core/config', { cookie: readCookie, body })).status, 403);
    assert.deepEqual(dataOf(await h.request('GET', '/auth/status', { cookie: readCookie })), {
      authenticated: true,
      level: 'read',
      via: 'session',
      expires_at: dataOf<{ expires_at: number }>(readLogin).expires_at,
    });

    const writeCookie = sessionCookie(await h.request('POST', '/auth/login', { body: { token: WRITE_TOKEN } }));
    assert.equal((await h.request('PUT', '/plugins/core/config', { cookie: writeCookie, body })).status, 200);
    assert.equal(
      dataOf<{ level: string }>(await h.request('GET', '/auth/status', { cookie: writeCookie })).level,
      'write',
    );

    // A forged or altered cookie is no session.
    const altered = writeCookie.replace(
      /.(.{5})$/,
      (_, rest: string) => `${writeCookie.at(-6) === 'A' ? 'B' : 'A'}${rest}`,
    );
    assert.equal((await h.request('GET', '/plugins', { cookie: altered })).status, 401);
    assert.equal(
      dataOf<{ authenticated: boolean }>(await h.request('GET', '/auth/status', { cookie: altered })).authenticated,
      false,
    );
    assert.deepEqual(dataOf(await h.request('GET', '/auth/status')), {
      authenticated: false,
      level: null,
      via: null,
      expires_at: null,
    });

    const logout = await h.request('POST', '/auth/logout', { cookie: writeCookie });
    assert.equal(logout.status, 200);
    assert.match(
      logout.headers.get('set-cookie') ?? '',
      /chorus_console_session=;.*(Max-Age=0|Expires=Thu, 01 Jan 1970)/,
    );
    assert.ok(!h.logs().includes(writeCookie.split('=')[1] as string), 'session value in the log');
  });

  it('a session ends after 72 h, and when the tokens change', async (t) => {
    const clock = new FakeClock(Date.now());
    const h = await startHarness(t, { clock });
    const cookie = sessionCookie(await h.request('POST', '/auth/login', { body: { token: WRITE_TOKEN } }));
    clock.advance(72 * 3600 * 1000 - 1000);
    assert.equal((await h.request('GET', '/plugins', { cookie })).status, 200);
    clock.advance(2000);
    assert.equal((await h.request('GET', '/plugins', { cookie })).status, 401);

    const fresh = sessionCookie(await h.request('POST', '/auth/login', { body: { token: WRITE_TOKEN } }));
    const saved = await h.request('PUT', '/plugins/console/config', {
      cookie: fresh,
      body: { values: { write_token: 'a-brand-new-write-token-42' } },
    });
    assert.equal(saved.status, 200, saved.text);
    const row = dataOf<{ fields: { key: string; current: unknown; is_set?: boolean }[] }>(saved).fields.find(
      (field) => field.key === 'write_token',
    );
    assert.deepEqual([row?.current, row?.is_set], ['', true], 'a secret is never returned');
    assert.ok(!saved.text.includes('a-brand-new-write-token-42'));
    // Applied at once: the old session and the old write token are gone, the new token writes.
    assert.equal((await h.request('GET', '/plugins', { cookie: fresh })).status, 401);
    const oldWrite = await h.request('PUT', '/bot-configs/5', { token: WRITE_TOKEN, body: { security: true } });
    assert.equal(oldWrite.status, 401, 'the old write token is no token any more');
    const read = await h.request('PUT', '/bot-configs/5', { token: READ_TOKEN, body: { security: true } });
    assert.equal(read.status, 403);
    const next = await h.request('PUT', '/bot-configs/5', {
      token: 'a-brand-new-write-token-42',
      body: { security: true },
    });
    assert.equal(next.status, 200, next.text);
  });
});

describe('log out everywhere and proxies', () => {
  it("revoking sessions ends every session cookie but the caller's renewed one; tokens still work", async (t) => {
    const h = await startHarness(t);
    const secretFile = join(h.dir, 'console-auth.json');
    const secretBefore = (JSON.parse(await readFile(secretFile, 'utf8')) as { session_secret: string }).session_secret;
    const mine = sessionCookie(await h.request('POST', '/auth/login', { body: { token: WRITE_TOKEN } }));
    const other = sessionCookie(await h.request('POST', '/auth/login', { body: { token: READ_TOKEN } }));
    const refused = await h.request('POST', '/auth/sessions/revoke', { cookie: other });
    assert.equal(refused.status, 403, 'a read session cannot log everyone out');
    assert.equal((await h.request('GET', '/plugins', { cookie: other })).status, 200);

    const revoked = await h.request('POST', '/auth/sessions/revoke', { cookie: mine });
    assert.deepEqual(dataOf(revoked), { revoked: true, session_reissued: true });
    const renewed = sessionCookie(revoked);
    assert.equal((await h.request('GET', '/plugins', { cookie: other })).status, 401, 'other sessions end');
    assert.equal((await h.request('GET', '/plugins', { cookie: mine })).status, 401, 'the old cookie ends');
    assert.equal((await h.request('GET', '/plugins', { cookie: renewed })).status, 200, 'the renewed one works');
    assert.equal((await h.request('GET', '/plugins', { token: READ_TOKEN })).status, 200, 'tokens still work');
    const secretAfter = (JSON.parse(await readFile(secretFile, 'utf8')) as { session_secret: string }).session_secret;
    assert.notEqual(secretAfter, secretBefore, 'the new secret is on disk, so a restart keeps them ended');

    const byToken = await h.request('POST', '/auth/sessions/revoke', { token: WRITE_TOKEN });
    assert.deepEqual(dataOf(byToken), { revoked: true, session_reissued: false });
    assert.equal((await h.request('GET', '/plugins', { cookie: renewed })).status, 401);
  });

  it('behind a trusted proxy: Secure cookies over https and the limit counts the real client', async (t) => {
    const h = await startHarness(t, {
      env: { CHORUS_TRUST_PROXY: '127.0.0.1', CHORUS_CONSOLE_LOGIN_MAX_FAILURES: '2' },
    });
    const viaTls = await h.request('POST', '/auth/login', {
      body: { token: READ_TOKEN },
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '203.0.113.7' },
    });
    assert.match(viaTls.headers.get('set-cookie') ?? '', /;\s*Secure/i);
    for (let i = 0; i < 2; i++) {
      const guess = await h.request('GET', '/plugins', {
        token: `wrong-${i}-guess`,
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      assert.equal(guess.status, 401);
    }
    const lockedClient = { 'x-forwarded-for': '203.0.113.9' };
    assert.equal((await h.request('GET', '/plugins', { token: READ_TOKEN, headers: lockedClient })).status, 429);
    const otherClient = { 'x-forwarded-for': '203.0.113.10' };
    assert.equal((await h.request('GET', '/plugins', { token: READ_TOKEN, headers: otherClient })).status, 200);
  });

  it('without CHORUS_TRUST_PROXY forwarded headers are ignored', async (t) => {
    const h = await startHarness(t, { env: { CHORUS_CONSOLE_LOGIN_MAX_FAILURES: '2' } });
    const login = await h.request('POST', '/auth/login', {
      body: { token: READ_TOKEN },
      headers: { 'x-forwarded-proto': 'https' },
    });
    assert.doesNotMatch(login.headers.get('set-cookie') ?? '', /Secure/i);
    for (let i = 0; i < 2; i++) {
      await h.request('GET', '/plugins', {
        token: `wrong-${i}-guess`,
        headers: { 'x-forwarded-for': `198.51.100.${i}` },
      });
    }
    // A client cannot escape the limit by inventing forwarded addresses.
    const spoofed = { 'x-forwarded-for': '198.51.100.99' };
    assert.equal((await h.request('GET', '/plugins', { token: READ_TOKEN, headers: spoofed })).status, 429);
  });
});

describe('login rate limit', () => {
  it('answers 429 with Retry-After once the failures of an address reach the limit, until the window ends', async (t) => {
    const clock = new FakeClock(Date.now());
    const h = await startHarness(t, {
      clock,
      env: { CHORUS_CONSOLE_LOGIN_MAX_FAILURES: '3', CHORUS_CONSOLE_LOGIN_WINDOW_SEC: '60' },
    });
    for (let i = 0; i < 3; i++) {
      const reply = await h.request('POST', '/auth/login', { body: { token: `wrong-guess-${i}` } });
      assert.equal(reply.status, 401);
      assert.deepEqual(reply.json, { ok: false, detail: 'invalid token', code: 'invalid_token', params: {} });
    }
    clock.advance(15_000);
    const limited = await h.request('POST', '/auth/login', { body: { token: WRITE_TOKEN } });
    assert.equal(limited.status, 429, 'even the right token waits');
    assert.equal(limited.headers.get('retry-after'), '45');
    assert.match((limited.json as { detail: string }).detail, /retry in 45 s/);
    assert.equal(limited.headers.get('set-cookie'), null);

    clock.advance(45_000);
    const after = await h.request('POST', '/auth/login', { body: { token: WRITE_TOKEN } });
    assert.equal(after.status, 200);
    for (let i = 0; i < 3; i++) assert.ok(!h.logs().includes(`wrong-guess-${i}`), 'a guessed token in the log');
    assert.match(h.logs(), /console credential refused/);
  });

  it('wrong tokens in the header, the query or a forged session count toward the same limit', async (t) => {
    const clock = new FakeClock(Date.now());
    const h = await startHarness(t, {
      clock,
      env: { CHORUS_CONSOLE_LOGIN_MAX_FAILURES: '3', CHORUS_CONSOLE_LOGIN_WINDOW_SEC: '60' },
    });
    assert.equal((await h.request('GET', '/plugins', { token: 'guess-one-0000' })).status, 401);
    assert.equal((await h.request('GET', '/plugins', { query: { token: 'guess-two-0000' } })).status, 401);
    // The public status route tells whether a credential is valid, so it counts too.
    assert.equal(
      (await h.request('GET', '/auth/status', { cookie: 'chorus_console_session=v1.forged.x' })).status,
      200,
    );
    for (const attempt of [
      () => h.request('GET', '/plugins', { token: READ_TOKEN }),
      () => h.request('GET', '/plugins', { query: { token: WRITE_TOKEN } }),
      () => h.request('GET', '/auth/status', { token: WRITE_TOKEN }),
      () => h.request('POST', '/auth/login', { body: { token: WRITE_TOKEN } }),
    ]) {
      const refused = await attempt();
      assert.equal(refused.status, 429, 'the right credential is refused during the lockout as well');
      assert.equal(refused.headers.get('retry-after'), '60');
    }
    // Without a credential nothing is revealed, so nothing is refused beyond the usual 401.
    assert.equal((await h.request('GET', '/plugins')).status, 401);
    assert.equal((await h.request('GET', '/health')).status, 200);
    clock.advance(60_000);
    assert.equal((await h.request('GET', '/plugins', { token: READ_TOKEN })).status, 200);
    for (const guess of ['guess-one-0000', 'guess-two-0000'])
      assert.ok(!h.logs().includes(guess), 'a guess in the log');
  });

  it('a bad login body is a 400 naming the field and does not count as a failure', async (t) => {
    const h = await startHarness(t, { env: { CHORUS_CONSOLE_LOGIN_MAX_FAILURES: '1' } });
    const missing = await h.request('POST', '/auth/login', { body: {} });
    assert.deepEqual([missing.status, (missing.json as { detail: string }).detail], [400, 'body.token: required']);
    const extra = await h.request('POST', '/auth/login', { body: { token: 'x', password: 'y' } });
    assert.deepEqual([extra.status, (extra.json as { detail: string }).detail], [400, 'body.password: unknown field']);
    assert.equal((await h.request('POST', '/auth/login', { raw: '{not json' })).status, 400);
    assert.equal((await h.request('POST', '/auth/login', { body: { token: READ_TOKEN } })).status, 200);
  });
});

describe('same-origin writes (docs/rules.md#console-origin)', () => {
  /** Everything "log out everywhere" would change: the secret on disk and another session. */
  async function untouched(h: Harness, other: string, secretBefore: string): Promise<void> {
    const secret = (JSON.parse(await readFile(join(h.dir, 'console-auth.json'), 'utf8')) as { session_secret: string })
      .session_secret;
    assert.equal(secret, secretBefore, 'the session secret was not rotated');
    assert.equal((await h.request('GET', '/plugins', { cookie: other })).status, 200, 'the other session still works');
  }

  it('refuses a cookie-authenticated write from another origin or port, with a code; tokens and its own origin pass', async (t) => {
    const h = await startHarness(t);
    const secretBefore = (
      JSON.parse(await readFile(join(h.dir, 'console-auth.json'), 'utf8')) as { session_secret: string }
    ).session_secret;
    const mine = sessionCookie(await h.request('POST', '/auth/login', { body: { token: WRITE_TOKEN } }));
    const other = sessionCookie(await h.request('POST', '/auth/login', { body: { token: READ_TOKEN } }));
    const port = Number(new URL(h.origin).port);
    const otherPort = `http://127.0.0.1:${port === 65535 ? port - 1 : port + 1}`;

    const foreign: Record<string, string>[] = [
      { origin: 'http://evil.example' },
      { origin: otherPort },
      { origin: 'null' },
      { 'sec-fetch-site': 'same-site' },
      { 'sec-fetch-site': 'cross-site' },
      // What a browser sends from a page on another port: the fetch metadata decides.
      { origin: otherPort, 'sec-fetch-site': 'same-site' },
    ];
    for (const headers of foreign) {
      const label = JSON.stringify(headers);
      const refused = await h.request('POST', '/auth/sessions/revoke', { cookie: mine, headers });
      assert.equal(refused.status, 403, label);
      const body = refused.json as { code?: string; params?: Record<string, unknown>; detail: string };
      assert.equal(body.code, 'foreign_origin', label);
      assert.equal(body.params?.expected, h.origin, label);
      assert.equal(refused.headers.get('set-cookie'), null, `${label}: no new cookie`);
      await untouched(h, other, secretBefore);
    }
    // A write with a body is refused the same way, and nothing is saved.
    const body = { values: { merge_strategy: 'merge_counts' } };
    const before = dataOf<{ fields: { key: string; current: unknown }[] }>(
      await h.request('GET', '/plugins/core/config', { token: READ_TOKEN }),
    );
    const save = await h.request('PUT', '/plugins/core/config', { cookie: mine, body, headers: { origin: otherPort } });
    assert.equal(save.status, 403);
    assert.deepEqual(
      dataOf(await h.request('GET', '/plugins/core/config', { token: READ_TOKEN })),
      before,
      'the settings are unchanged',
    );
    // Reading with the cookie from anywhere is not a change; the console's own origin writes.
    assert.equal((await h.request('GET', '/plugins', { cookie: mine, headers: { origin: otherPort } })).status, 200);
    const own = await h.request('PUT', '/plugins/core/config', { cookie: mine, body, headers: { origin: h.origin } });
    assert.equal(own.status, 200, own.text);
    const ownFetch = await h.request('PUT', '/plugins/core/config', {
      cookie: mine,
      body,
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(ownFetch.status, 200, ownFetch.text);
    // Tokens in the header or the query are not asked, whatever the origin.
    const byHeader = await h.request('PUT', '/plugins/core/config', { token: WRITE_TOKEN, body });
    assert.equal(byHeader.status, 200, byHeader.text);
    const byHeaderElsewhere = await h.request('PUT', '/plugins/core/config', {
      token: WRITE_TOKEN,
      body,
      headers: { origin: 'http://evil.example' },
    });
    assert.equal(byHeaderElsewhere.status, 200, byHeaderElsewhere.text);
    const byQuery = await h.request('PUT', '/plugins/core/config', { query: { token: WRITE_TOKEN }, body });
    assert.equal(byQuery.status, 200, byQuery.text);
    // Finally the revoke from its own origin does what it says.
    const revoked = await h.request('POST', '/auth/sessions/revoke', { cookie: mine, headers: { origin: h.origin } });
    assert.equal(revoked.status, 200, revoked.text);
    assert.equal((await h.request('GET', '/plugins', { cookie: other })).status, 401);
  });

  it('the origin behind a trusted proxy is the forwarded one; an untrusted proxy forwards nothing', async (t) => {
    const forwarded = { 'x-forwarded-host': 'chorus.example', 'x-forwarded-proto': 'https' };
    const body = { values: { merge_strategy: 'merge_counts' } };
    const trusted = await startHarness(t, { env: { CHORUS_TRUST_PROXY: '127.0.0.1' } });
    const cookie = sessionCookie(await trusted.request('POST', '/auth/login', { body: { token: WRITE_TOKEN } }));
    const viaProxy = await trusted.request('PUT', '/plugins/core/config', {
      cookie,
      body,
      headers: { ...forwarded, origin: 'https://chorus.example' },
    });
    assert.equal(viaProxy.status, 200, viaProxy.text);
    const direct = await trusted.request('PUT', '/plugins/core/config', {
      cookie,
      body,
      headers: { ...forwarded, origin: trusted.origin },
    });
    assert.equal(direct.status, 403, 'behind the proxy the direct origin is another one');

    const untrusted = await startHarness(t);
    const cookie2 = sessionCookie(await untrusted.request('POST', '/auth/login', { body: { token: WRITE_TOKEN } }));
    const spoofed = await untrusted.request('PUT', '/plugins/core/config', {
      cookie: cookie2,
      body,
      headers: { ...forwarded, origin: 'https://chorus.example' },
    });
    assert.equal(spoofed.status, 403, 'forwarded headers from an untrusted peer are ignored');
    // A proxy that rewrites Host (nginx's default): the browser's own fetch metadata says same-origin.
    const rewritten = await untrusted.request('PUT', '/plugins/core/config', {
      cookie: cookie2,
      body,
      headers: { origin: 'https://chorus.example', 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(rewritten.status, 200, rewritten.text);
    // A TLS proxy that passes Host on unchanged: the browser's https origin with the same host passes.
    const upgraded = await untrusted.request('PUT', '/plugins/core/config', {
      cookie: cookie2,
      body,
      headers: { origin: untrusted.origin.replace('http:', 'https:') },
    });
    assert.equal(upgraded.status, 200, upgraded.text);
  });
});

describe('console-wide failure budget', () => {
  interface LoginHealth {
    console?: {
      login: { failures_in_window: number; budget: number; slowed: boolean; slowed_refusals: number };
    };
  }
  const loginHealth = async (h: Harness) => {
    const health = (await h.request('GET', '/health')).json as LoginHealth;
    assert.ok(health.console, 'the console part of /health');
    return health.console.login;
  };

  it('guesses spread over many addresses, each under its own limit, are slowed once the budget is used up', async (t) => {
    // The defaults: 10 failures per address and window, so a budget of 100 for the console.
    const clock = new FakeClock(Date.now());
    const h = await startHarness(t, { clock, env: { CHORUS_TRUST_PROXY: '127.0.0.1' } });
    const statuses = new Map<number, number>();
    for (let address = 1; address <= 40; address++) {
      for (let guess = 0; guess < 10; guess++) {
        const reply = await h.request('GET', '/plugins', {
          token: `guess-${address}-${guess}-xyz`,
          headers: { 'x-forwarded-for': `198.18.0.${address}` },
        });
        statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
        if (reply.status === 429) assert.equal((reply.json as { code?: string }).code, 'login_slowed');
      }
    }
    assert.deepEqual(
      Object.fromEntries(statuses),
      { 401: 100, 429: 300 },
      'past 100 failures the guesses were slowed, not answered',
    );
    const health = await loginHealth(h);
    assert.deepEqual([health.failures_in_window, health.budget, health.slowed], [100, 100, true]);
    assert.equal(health.slowed_refusals, 300);
    assert.match(h.logs(), /console failure budget used up/);
  });

  it('the right token still works after a short wait; the wait is the same whatever the token', async (t) => {
    const clock = new FakeClock(Date.now());
    const h = await startHarness(t, {
      clock,
      env: { CHORUS_TRUST_PROXY: '127.0.0.1', CHORUS_CONSOLE_LOGIN_MAX_FAILURES: '2' },
    });
    const budget = (await loginHealth(h)).budget;
    assert.equal(budget, 50, 'ten addresses worth, at least 50');
    for (let i = 0; i < budget; i++) {
      const reply = await h.request('POST', '/auth/login', {
        body: { token: `wrong-guess-${i}` },
        headers: { 'x-forwarded-for': `198.18.1.${Math.floor(i / 2)}` },
      });
      assert.equal(reply.status, 401);
    }
    const fresh = { 'x-forwarded-for': '192.0.2.200' };
    for (const token of ['wrong-guess-x', WRITE_TOKEN]) {
      const slowed = await h.request('POST', '/auth/login', { body: { token }, headers: fresh });
      assert.equal(slowed.status, 429, 'refused whatever the token');
      assert.equal(slowed.headers.get('retry-after'), '1');
      assert.deepEqual((slowed.json as { code: string; params: unknown }).params, { seconds: 1 });
      assert.equal(slowed.headers.get('set-cookie'), null);
    }
    const header = await h.request('GET', '/plugins', { token: READ_TOKEN, headers: fresh });
    assert.equal(header.status, 429, 'header tokens wait their turn as well');
    clock.advance(1000);
    const login = await h.request('POST', '/auth/login', { body: { token: WRITE_TOKEN }, headers: fresh });
    assert.equal(login.status, 200, login.text);
    // The session it gave is not paced: a cookie cannot be guessed.
    const cookie = sessionCookie(login);
    for (let i = 0; i < 3; i++) assert.equal((await h.request('GET', '/plugins', { cookie })).status, 200);
    const health = await loginHealth(h);
    assert.deepEqual([health.failures_in_window, health.slowed, health.slowed_refusals], [budget, true, 3]);
    // The window ends and with it the slowing.
    clock.advance(300_000);
    assert.equal((await h.request('GET', '/plugins', { token: READ_TOKEN, headers: fresh })).status, 200);
    assert.equal((await h.request('GET', '/plugins', { token: READ_TOKEN, headers: fresh })).status, 200);
    assert.equal((await loginHealth(h)).slowed, false);
  });
});
