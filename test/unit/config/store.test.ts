import assert from 'node:assert/strict';
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  ConfigFileError,
  ConfigListenerError,
  ConfigStore,
  ConfigValidationError,
  configFromValues,
  writeFileAtomic,
  type ConfigChange,
} from './api.ts';
import { tempProject, writeFiles } from './helpers.ts';

function collect(store: ConfigStore): ConfigChange[] {
  const seen: ConfigChange[] = [];
  store.on('config/changed', (change) => seen.push(change));
  return seen;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => assert.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('reload', () => {
  it('emits config/changed with exactly the changed keys', async (t) => {
    const dir = await tempProject(t, { 'chorus.toml': 'CHORUS_PORT = 8080\nCHORUS_HOST = "::"\n' });
    const store = await ConfigStore.open({ projectDir: dir, env: {} });
    const events = collect(store);
    const before = store.current();
    await writeFiles(dir, {
      'chorus.toml': 'CHORUS_PORT = 8081\nCHORUS_HOST = "::"\n',
      '.env': 'CHORUS_CORPUS_REMOTE_FIND_ENABLED=on\nCHORUS_LOG_LEVEL=info\n',
    });
    const change = await store.reload();
    assert.ok(change);
    assert.deepEqual(change.changedKeys, ['CHORUS_PORT', 'CHORUS_CORPUS_REMOTE_FIND_ENABLED']);
    assert.equal(change.previous, before);
    assert.equal(change.previous.server.port, 8080);
    assert.equal(change.current.server.port, 8081);
    assert.equal(change.current.corpus.remoteFindEnabled, 'prefetch');
    assert.equal(store.current(), change.current);
    assert.equal(events.length, 1);
    assert.equal(events[0], change);
  });

  it('emits nothing and keeps the snapshot when no value changed', async (t) => {
    const dir = await tempProject(t, { 'chorus.toml': 'CHORUS_PORT = 8080\n' });
    const store = await ConfigStore.open({ projectDir: dir, env: {} });
    const events = collect(store);
    const before = store.current();
    await writeFiles(dir, { 'chorus.toml': '# reformatted\nCHORUS_PORT = 8080 # same value\n' });
    assert.equal(await store.reload(), null);
    assert.equal(store.current(), before);
    assert.equal(events.length, 0);
  });

  it('a value moving to another source with the same value emits nothing but updates sourceOf', async (t) => {
    const dir = await tempProject(t, { 'chorus.toml': 'CHORUS_PORT = 8080\n' });
    const store = await ConfigStore.open({ projectDir: dir, env: {} });
    const events = collect(store);
    await writeFiles(dir, { 'chorus.toml': '', '.env': 'CHORUS_PORT=8080\n' });
    assert.equal(await store.reload(), null);
    assert.equal(events.length, 0);
    assert.equal(store.current().sourceOf('CHORUS_PORT'), 'dotenv');
  });

  it('a throwing listener skips none of the others; the reload rejects naming it, with the change', async (t) => {
    const dir = await tempProject(t, { 'chorus.toml': 'CHORUS_PORT = 8080\n' });
    const store = await ConfigStore.open({ projectDir: dir, env: {} });
    const heard: string[] = [];
    store.on('config/changed', () => {
      heard.push('first');
      throw new Error('first listener broke');
    });
    store.on('config/changed', () => {
      heard.push('second');
    });
    await writeFiles(dir, { 'chorus.toml': 'CHORUS_PORT = 8081\n' });
    const error = await rejection(store.reload());
    assert.ok(error instanceof ConfigListenerError);
    assert.match(error.message, /a configuration listener failed: first listener broke/);
    assert.deepEqual(heard, ['first', 'second']);
    assert.deepEqual(error.change.changedKeys, ['CHORUS_PORT']);
    assert.equal(error.change.current, store.current(), 'the new snapshot is in place');
  });

  it('a malformed file on reload rejects and keeps the previous snapshot', async (t) => {
    const dir = await tempProject(t, { '.env': 'CHORUS_PORT=8080\n' });
    const store = await ConfigStore.open({ projectDir: dir, env: {} });
    const before = store.current();
    await writeFiles(dir, { '.env': 'CHORUS_PORT=8081\nnot an entry\n' });
    const error = await rejection(store.reload());
    assert.ok(error instanceof ConfigFileError);
    assert.equal(error.line, 2);
    assert.equal(store.current(), before);
  });
});

describe('saveConsoleSettings', () => {
  it('writes canonical values atomically with mode 0600 and reloads', async (t) => {
    const dir = await tempProject(t);
    const store = await ConfigStore.open({ projectDir: dir, env: { CHORUS_PORT: '9000' } });
    const events = collect(store);
    const change = await store.saveConsoleSettings({
      chorus_port: '9001',
      CHORUS_CORPUS_REMOTE_FIND_ENABLED: true,
      CHORUS_CORPUS_COMMUNITY_ENABLED: 'yes',
      LLM_CORPUS_LEARN_GUARD_PHRASES: 'a|b',
    });
    const file = join(dir, 'data', 'console-settings.json');
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), {
      CHORUS_CORPUS_COMMUNITY_ENABLED: true,
      CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch',
      CHORUS_PORT: 9001,
      LLM_CORPUS_LEARN_GUARD_PHRASES: ['a', 'b'],
    });
    assert.deepEqual(await readdir(join(dir, 'data')), ['console-settings.json']);
    assert.ok(change);
    assert.deepEqual(change.changedKeys, [
      'CHORUS_PORT',
      'CHORUS_CORPUS_COMMUNITY_ENABLED',
      'CHORUS_CORPUS_REMOTE_FIND_ENABLED',
      'LLM_CORPUS_LEARN_GUARD_PHRASES',
    ]);
    assert.equal(store.current().server.port, 9001);
    assert.equal(store.current().sourceOf('CHORUS_PORT'), 'console');
    assert.equal(events.length, 1);
  });

  it('merges into the existing file, and null removes a key', async (t) => {
    const dir = await tempProject(t, {
      'data/console-settings.json': JSON.stringify({
        CHORUS_PORT: 9100,
        CHORUS_RETIRED_KEY: 1,
        CHORUS_LOG_LEVEL: 'warn',
      }),
    });
    const store = await ConfigStore.open({ projectDir: dir, env: {} });
    const change = await store.saveConsoleSettings({ CHORUS_CORPUS_BACKFILL_ENABLED: 'on', CHORUS_LOG_LEVEL: null });
    const file = join(dir, 'data', 'console-settings.json');
    assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), {
      CHORUS_CORPUS_BACKFILL_ENABLED: true,
      CHORUS_PORT: 9100,
    });
    assert.deepEqual(change?.changedKeys, ['CHORUS_LOG_LEVEL', 'CHORUS_CORPUS_BACKFILL_ENABLED']);
    assert.equal(store.current().server.logLevel, 'info');
    assert.equal(store.current().sourceOf('CHORUS_LOG_LEVEL'), 'default');
  });

  it('saving the values already in effect returns null and emits nothing', async (t) => {
    const dir = await tempProject(t);
    const store = await ConfigStore.open({ projectDir: dir, env: {} });
    const events = collect(store);
    assert.equal(await store.saveConsoleSettings({ CHORUS_PORT: 8088 }), null);
    assert.equal(events.length, 0);
    assert.equal(store.current().sourceOf('CHORUS_PORT'), 'console');
  });

  it('rejects an unknown key, naming it, and writes nothing', async (t) => {
    const dir = await tempProject(t);
    const store = await ConfigStore.open({ projectDir: dir, env: {} });
    const error = await rejection(store.saveConsoleSettings({ CHORUS_PORT: 9001, CHORUS_NOPE: 1 }));
    assert.ok(error instanceof ConfigValidationError);
    assert.equal(error.field, 'CHORUS_NOPE');
    assert.match(error.message, /CHORUS_NOPE/);
    await assert.rejects(stat(join(dir, 'data', 'console-settings.json')), { code: 'ENOENT' });
    assert.equal(store.current().server.port, 8088);
  });

  it('rejects a bad value, naming the field, and leaves the existing file untouched', async (t) => {
    const original = `${JSON.stringify({ CHORUS_HOST: '::' })}\n`;
    const dir = await tempProject(t, { 'data/console-settings.json': original });
    const store = await ConfigStore.open({ projectDir: dir, env: {} });
    const error = await rejection(store.saveConsoleSettings({ CHORUS_HOST: '0.0.0.0', CHORUS_PORT: 0 }));
    assert.ok(error instanceof ConfigValidationError);
    assert.equal(error.field, 'CHORUS_PORT');
    assert.equal(error.message, 'CHORUS_PORT: expected an integer in 1..65535, got 0');
    assert.equal(await readFile(join(dir, 'data', 'console-settings.json'), 'utf8'), original);
  });

  it('refuses CHORUS_DATA_DIR and never echoes a secret', async (t) => {
    const dir = await tempProject(t);
    const store = await ConfigStore.open({ projectDir: dir, env: {} });
    const dataDir = await rejection(store.saveConsoleSettings({ CHORUS_DATA_DIR: 'elsewhere' }));
    assert.ok(dataDir instanceof ConfigValidationError);
    assert.equal(dataDir.field, 'CHORUS_DATA_DIR');
    const secret = await rejection(store.saveConsoleSettings({ CHORUS_DATABASE_URL: 'mysql://root:hunter2@db/x' }));
    assert.ok(secret instanceof ConfigValidationError);
    assert.equal(secret.field, 'CHORUS_DATABASE_URL');
    assert.ok(!secret.message.includes('hunter2'), secret.message);
    await assert.rejects(stat(join(dir, 'data')), { code: 'ENOENT' });
  });

  it('writes into the data folder that .env names', async (t) => {
    const dir = await tempProject(t, { '.env': 'CHORUS_DATA_DIR=var/chorus\n' });
    const store = await ConfigStore.open({ projectDir: dir, env: {} });
    await store.saveConsoleSettings({ CHORUS_SHARD_ROLE: 'worker' });
    const stored = JSON.parse(await readFile(join(dir, 'var', 'chorus', 'console-settings.json'), 'utf8')) as unknown;
    assert.deepEqual(stored, { CHORUS_SHARD_ROLE: 'worker' });
    assert.equal(store.current().server.shardRole, 'worker');
  });
});

describe('writeFileAtomic', () => {
  it('replaces a file with the requested mode and leaves no temporary file', async (t) => {
    const dir = await tempProject(t, { 'state.json': 'old' });
    const path = join(dir, 'state.json');
    await chmod(path, 0o644);
    await writeFileAtomic(path, '{"a":1}', { mode: 0o600 });
    assert.equal(await readFile(path, 'utf8'), '{"a":1}');
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    await writeFileAtomic(join(dir, 'public.json'), new Uint8Array([123, 125]), { mode: 0o644 });
    assert.equal((await stat(join(dir, 'public.json'))).mode & 0o777, 0o644);
    assert.deepEqual((await readdir(dir)).sort(), ['public.json', 'state.json']);
  });

  it('fails without touching the target when the folder is missing', async (t) => {
    const dir = await tempProject(t);
    await assert.rejects(writeFileAtomic(join(dir, 'missing', 'x.json'), 'x'), { code: 'ENOENT' });
    await writeFile(join(dir, 'keep.json'), 'keep');
    assert.deepEqual(await readdir(dir), ['keep.json']);
  });
});

describe('snapshots', () => {
  it('are deeply frozen', async (t) => {
    const dir = await tempProject(t, { '.env': 'CHORUS_PORT=abc\n' });
    const snapshot = (await ConfigStore.open({ projectDir: dir, env: {} })).current();
    for (const part of [
      snapshot,
      snapshot.server,
      snapshot.corpus,
      snapshot.corpus.mergeOrder,
      snapshot.database,
      snapshot.warnings,
      snapshot.warnings[0],
    ]) {
      assert.ok(Object.isFrozen(part));
    }
    assert.throws(() => {
      (snapshot.server as { port: number }).port = 1;
    }, TypeError);
    assert.throws(() => {
      (snapshot.corpus.mergeOrder as string[]).push('x');
    }, TypeError);
    assert.equal(snapshot.server.port, 8088);
  });

  it('configFromValues applies overrides on defaults without files', () => {
    const snapshot = configFromValues(
      { CHORUS_CORPUS_REPLY_MESSAGES_CAP: 8, chorus_corpus_remote_find_enabled: 'sync' },
      { projectDir: '/srv/chorus' },
    );
    assert.equal(snapshot.performance.replyMessagesCap, 8);
    assert.equal(snapshot.corpus.remoteFindEnabled, 'sync');
    assert.equal(snapshot.sourceOf('CHORUS_CORPUS_REPLY_MESSAGES_CAP'), 'env');
    assert.equal(snapshot.sourceOf('CHORUS_PORT'), 'default');
    assert.equal(snapshot.dataDir, '/srv/chorus/data');
    assert.deepEqual(snapshot.raw('CHORUS_CORPUS_MERGE_ORDER'), ['local', 'fed', 'community']);
    assert.throws(
      () => configFromValues({ CHORUS_NOPE: 1 }),
      (e: unknown) => e instanceof ConfigValidationError && e.field === 'CHORUS_NOPE',
    );
    assert.throws(
      () => configFromValues({ CHORUS_PORT: 'x' }),
      (e: unknown) => e instanceof ConfigValidationError && e.field === 'CHORUS_PORT',
    );
  });
});
