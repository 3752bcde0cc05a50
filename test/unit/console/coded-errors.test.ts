/**
 * Every console error carries a stable code and its parameters beside the English detail
 * (issue 28.2): a schema violation is `invalid_field` with the field's path and a reason from a
 * closed set, a malformed body `invalid_request`, an unknown route `no_such_route`.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';

interface ErrorWords {
  errors: Record<string, unknown> & { reason: Record<string, string> };
}
// The web locales import their neighbours without extensions (vite's resolution), which the
// server's tsconfig does not follow; tsx loads them at run time.
const locale = async (name: string): Promise<ErrorWords> =>
  ((await import(new URL(`../../../web/src/locales/${name}.ts`, import.meta.url).href)) as { default: ErrorWords })
    .default;
const zh = await locale('zh');
const en = await locale('en');
import { schemaProblem } from '../../../src/common/schema-errors.ts';
import { startHarness, WRITE_TOKEN, READ_TOKEN } from './harness.ts';

interface ErrorBody {
  ok: boolean;
  code?: string;
  params?: Record<string, string | number>;
  detail: string;
}

describe('coded console errors', () => {
  it('a schema violation names the field path and the reason', async (t) => {
    const h = await startHarness(t);
    const cases: { method: string; path: string; body?: unknown; field: string; reason: string }[] = [
      {
        method: 'PUT',
        path: '/common-config/logging',
        body: { values: { host: '0.0.0.0' } },
        field: 'body.values.host',
        reason: 'extra',
      },
      { method: 'PUT', path: '/plugins/core/config', body: {}, field: 'body.values', reason: 'required' },
      { method: 'POST', path: '/corpus/moderation/x/undo', field: 'params.id', reason: 'type' },
      { method: 'GET', path: '/db/table-rows?table=sqlite_master', field: 'query.table', reason: 'enum' },
    ];
    for (const bad of cases) {
      const reply = await h.request(bad.method, bad.path, { token: WRITE_TOKEN, body: bad.body });
      const body = reply.json as ErrorBody;
      assert.equal(reply.status, 400, `${bad.path}: ${reply.text}`);
      assert.equal(body.code, 'invalid_field', bad.path);
      assert.equal(body.params?.field, bad.field, bad.path);
      assert.equal(body.params?.reason, bad.reason, bad.path);
      assert.ok(body.detail.includes(bad.field.replace(/^body\./, '')), body.detail);
    }
  });

  it('a malformed body and an unknown route are coded too', async (t) => {
    const h = await startHarness(t);
    const malformed = await h.request('POST', '/service/restart', { token: WRITE_TOKEN, raw: '{"now": ' });
    assert.equal(malformed.status, 400);
    assert.equal((malformed.json as ErrorBody).code, 'invalid_request');
    const missing = await h.request('GET', '/no-such-thing', { token: READ_TOKEN });
    assert.equal(missing.status, 404);
    assert.deepEqual((missing.json as ErrorBody).params, { method: 'GET', path: '/chorus/api/no-such-thing' });
    assert.equal((missing.json as ErrorBody).code, 'no_such_route');
  });

  it('length and range rules carry their limit', () => {
    const tooLong = schemaProblem(
      [{ keyword: 'maxLength', instancePath: '/name', params: { limit: 64 }, message: 'must be shorter' }],
      'body',
    );
    assert.deepEqual(tooLong, {
      field: 'body.name',
      reason: 'too_long',
      limit: 64,
      detail: 'body.name: must be shorter',
    });
    const item = schemaProblem(
      [{ keyword: 'type', instancePath: '/admins/0', params: { type: 'integer' }, message: 'must be integer' }],
      'body',
    );
    assert.deepEqual(item, { field: 'body.admins.0', reason: 'type', detail: 'body.admins.0: must be integer' });
  });
});

/** Every console source file (routes, SSE, helpers). */
async function consoleSources(): Promise<{ path: string; text: string }[]> {
  const root = 'src/console';
  const names = (await readdir(root, { recursive: true })) as string[];
  const files = names.filter((name) => name.endsWith('.ts')).map((name) => join(root, name));
  return Promise.all(files.map(async (path) => ({ path, text: await readFile(path, 'utf8') })));
}

const CODE_PATTERNS = [
  /\b(?:badRequest|notFound|conflict|badGateway|unavailable)\(\s*'([a-z_]+)'/g,
  /new CodedError\(\s*[\w.]+,\s*'([a-z_]+)'/g,
  /\bcoded\(\d+, '([a-z_]+)'/g,
  /ok: false,[^}]*code: '([a-z_]+)'/g,
];

describe('every console error is coded and worded', () => {
  it('no route raises an error without a code', async () => {
    const offenders: string[] = [];
    for (const { path, text } of await consoleSources()) {
      if (path.endsWith('errors.ts')) continue;
      if (/new HttpError\(/.test(text)) offenders.push(`${path}: new HttpError`);
      for (const line of text.split('\n')) {
        if (/send\(\{ ok: false/.test(line) && !/code: '|\.\.\.coded/.test(line))
          offenders.push(`${path}: ${line.trim()}`);
      }
    }
    assert.deepEqual(offenders, []);
  });

  it('every code has words in Chinese and English', async () => {
    const codes = new Set<string>();
    for (const { text } of await consoleSources()) {
      for (const pattern of CODE_PATTERNS) for (const match of text.matchAll(pattern)) codes.add(match[1] as string);
    }
    for (const code of ['invalid_field', 'no_such_route', 'job_busy', 'foreign_origin', 'login_locked']) {
      assert.ok(codes.has(code), `the scan finds ${code}`);
    }
    for (const [name, table] of [
      ['zh', zh.errors],
      ['en', en.errors],
    ] as const) {
      const words = table as Record<string, unknown>;
      const missing = [...codes].filter((code) => typeof words[code] !== 'string' || words[code] === '');
      assert.deepEqual(missing, [], `${name} errors.<code>`);
    }
  });

  it('every field reason has words in Chinese and English', async () => {
    const errorsTs = await readFile('src/console/errors.ts', 'utf8');
    const schemaTs = await readFile('src/common/schema-errors.ts', 'utf8');
    const union = (text: string, name: string) =>
      [...(new RegExp(`type ${name} =([^;]+);`).exec(text)?.[1] ?? '').matchAll(/'([a-z_]+)'/g)].map((m) => m[1]);
    const reasons = [...union(schemaTs, 'SchemaReason'), ...union(errorsTs, 'FieldReason')];
    assert.ok(reasons.includes('too_long') && reasons.includes('blank'), reasons.join());
    for (const table of [zh.errors.reason, en.errors.reason]) {
      assert.deepEqual(
        reasons.filter((reason) => !(table as Record<string, string>)[reason as string]),
        [],
      );
    }
    assert.deepEqual(Object.keys(zh.errors).sort(), Object.keys(en.errors).sort());
  });
});
