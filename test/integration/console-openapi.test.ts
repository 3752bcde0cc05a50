/**
 * The contract (docs/rules.md#style-routes): the live GET /api/openapi.json is the committed
 * openspec/console-v1.json, which holds console API routes only; `openapi:check` passes on the
 * tree and fails when the file or the generated client types are altered.
 */
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { OPENAPI_FILE, runOpenapiTool, TYPES_FILE, type ToolOutput } from '../../src/app/openapi-tool.ts';
import { startHarness } from '../unit/console/harness.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Document {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown>; security?: unknown[] }>>;
}

/** Runs the tool with its output captured. */
async function quietly(work: (output: ToolOutput) => Promise<number>): Promise<{ code: number; output: string }> {
  let output = '';
  const sink: ToolOutput = { out: (line) => (output += `${line}\n`), error: (line) => (output += `${line}\n`) };
  return { code: await work(sink), output };
}

describe('OpenAPI contract', () => {
  it('the live document is the committed file, with console API routes only', async (t) => {
    const h = await startHarness(t);
    const reply = await fetch(`${h.api}/openapi.json`);
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', /application\/json/);
    const live = (await reply.json()) as Document;
    const committed = JSON.parse(await readFile(join(ROOT, OPENAPI_FILE), 'utf8')) as Document;
    assert.deepEqual(live, committed);
    assert.equal(live.openapi, '3.1.0');
    assert.deepEqual(live.servers, [{ url: '/chorus/api' }]);
    assert.ok(!Object.keys(live.paths).some((path) => path.includes('login') && !path.startsWith('/auth/')));
    for (const [path, methods] of Object.entries(live.paths)) {
      assert.ok(path.startsWith('/'), path);
      for (const [method, operation] of Object.entries(methods)) {
        assert.ok(operation.tags?.length, `${method} ${path} has a tag`);
        assert.ok(operation.responses['200'], `${method} ${path} has a 200 schema`);
        assert.ok(operation.responses['4XX'], `${method} ${path} documents its errors`);
        assert.ok(Array.isArray(operation.security), `${method} ${path} states its security`);
      }
    }
  });

  it('openapi:check passes on the tree and fails when the file or the types are stale', async (t) => {
    assert.equal((await quietly((o) => runOpenapiTool('check', ROOT, o))).code, 0);
    const copy = await mkdtemp(join(tmpdir(), 'chorus-openapi-'));
    t.after(() => rm(copy, { recursive: true, force: true }));
    for (const file of [OPENAPI_FILE, TYPES_FILE]) await cp(join(ROOT, file), join(copy, file), { recursive: true });
    assert.equal((await quietly((o) => runOpenapiTool('check', copy, o))).code, 0, 'a faithful copy passes');

    const original = await readFile(join(copy, OPENAPI_FILE), 'utf8');
    await writeFile(join(copy, OPENAPI_FILE), original.replace('"Chorus console API"', '"Edited by hand"'));
    const stale = await quietly((o) => runOpenapiTool('check', copy, o));
    assert.equal(stale.code, 1);
    assert.match(stale.output, /console-v1\.json is stale/);

    await writeFile(join(copy, OPENAPI_FILE), original);
    await writeFile(join(copy, TYPES_FILE), `${await readFile(join(copy, TYPES_FILE), 'utf8')}\n// edited\n`);
    const staleTypes = await quietly((o) => runOpenapiTool('check', copy, o));
    assert.equal(staleTypes.code, 1);
    assert.match(staleTypes.output, /console-v1\.d\.ts is stale/);

    await rm(join(copy, OPENAPI_FILE));
    assert.equal((await quietly((o) => runOpenapiTool('check', copy, o))).code, 1, 'a missing file fails');
  });
});
