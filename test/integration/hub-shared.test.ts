/**
 * The hub is stateless (docs/ARCHITECTURE.md "Processes"): every token, counter, rate window and row
 * lives in the database, so hub processes sharing one database serve the same data. Hub A runs
 * in this process; hub B is a real `chorus hub` child process on the same database (for
 * PostgreSQL the same schema, chosen through the URL's search_path).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { runChorus } from '../support/chorus-process.ts';
import { forEachEngine } from '../support/engines.ts';
import { HubClient, openHub } from './hub-support.ts';

forEachEngine((engine) => {
  it('two hubs on one database share tokens, corpus, usage and rate windows', async (t) => {
    const a = await openHub(t, engine, { readPerMinute: 4 });
    const b = await a.another();
    const { corpus_token: token } = await a.client.enroll();
    await b.client.contribute({ op: 'upsert_answer', keywords: 'k', answer_keywords: 'x', message: 'from b' }, token);
    const onA = await a.client.context('k', token);
    assert.deepEqual([onA.status, onA.body.answers[0].messages], [200, ['from b']]);
    assert.equal((await b.client.context('k', token)).status, 200);
    assert.equal((await a.client.context('k', token)).status, 200);
    assert.equal((await b.client.context('k', token)).status, 200);
    const limited = await a.client.context('k', token);
    assert.equal(limited.status, 429, 'the read window is shared: 4 reads across both hubs');
    const usage = (await b.client.get('/v1/corpus/usage', token)).body;
    assert.deepEqual([usage.read_lookups, usage.read_hits, usage.contribute_ok], [4, 4, 1]);
  });

  it('a `chorus hub` child process on the same database: enroll on A, read and rotate on B', async (t) => {
    const a = await openHub(t, engine);
    const { databaseUrl, dataDir, schema } = a.location;
    const url =
      databaseUrl === ''
        ? ''
        : `${databaseUrl}${databaseUrl.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const child = runChorus(['hub', '--project-dir', dataDir || process.cwd(), '--log-level', 'info'], {
      CHORUS_HUB_PORT: '0',
      CHORUS_HUB_DATABASE_URL: url,
      CHORUS_HUB_DATA_DIR: dataDir || 'unused',
      CHORUS_HUB_DATABASE_POOL_MAX: '2',
      // The origin's serving rule, as hub A has (ORIGIN_SERVING).
      CHORUS_HUB_MIN_DEPLOYMENTS: '1',
      CHORUS_HUB_COUNT_PER_DEPLOYMENT_MAX: '0',
    });
    t.after(async () => {
      if (child.child.exitCode === null) child.child.kill('SIGKILL');
      await child.exited;
    });
    const line = await child.waitFor(/community hub listening at/);
    const b = new HubClient(/listening at (http:\/\/[^"\s]+)/.exec(line)?.[1] ?? '');
    assert.equal((await b.get('/health')).status, 200);

    const id = crypto.randomUUID();
    const first = await a.client.enroll(id);
    await a.client.contribute({ op: 'upsert_answer', keywords: 'shared', answer_keywords: 'yes' }, first.corpus_token);
    const read = await b.context('shared', first.corpus_token);
    assert.deepEqual([read.status, read.body.answers[0].keywords], [200, 'yes']);

    const rotated = await b.request('POST', '/v1/corpus/enroll', {
      body: { deployment_id: id },
      token: first.corpus_token,
    });
    assert.equal(rotated.status, 200);
    const second = rotated.body as { corpus_token: string };
    assert.equal((await a.client.context('shared', first.corpus_token)).status, 401, 'rotated on B, refused on A');
    assert.equal((await a.client.context('shared', second.corpus_token)).status, 200);
    const usage = (await a.client.get('/v1/corpus/usage', second.corpus_token)).body;
    assert.deepEqual([usage.read_lookups, usage.read_hits, usage.contribute_ok], [2, 2, 1]);

    child.child.kill('SIGTERM');
    assert.equal(await child.exited, 0, 'stops cleanly on SIGTERM');
  });
});
