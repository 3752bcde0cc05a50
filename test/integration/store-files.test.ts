/**
 * The SQLite files hold group messages and user numbers: the data folder is created 0700 and the
 * database with its WAL 0600; an older database readable by others is made private at start.
 */
import assert from 'node:assert/strict';
import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openStore } from '../../src/store/open-store.ts';
import { DEFAULT_REPLY_SETTINGS } from '../../bench/store/run-engine.ts';
import { learn } from '../support/corpus-data.ts';

const modeOf = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

describe('SQLite file modes', () => {
  it('a new data folder is 0700, the database and its WAL 0600, whatever the umask', async (t) => {
    const root = await mkdtemp(join(tmpdir(), 'chorus-modes-'));
    t.after(() => rm(root, { recursive: true, force: true }));
    const dataDir = join(root, 'nested', 'data');
    const previous = process.umask(0o022);
    try {
      const store = await openStore({ databaseUrl: '', dataDir, poolMax: 1, reply: DEFAULT_REPLY_SETTINGS });
      await store.corpus.learnAnswer(learn('你好', '你好呀'));
      assert.equal(await modeOf(dataDir), 0o700);
      assert.equal(await modeOf(join(dataDir, 'chorus.db')), 0o600);
      assert.equal(await modeOf(join(dataDir, 'chorus.db-wal')), 0o600);
      await store.close();
    } finally {
      process.umask(previous);
    }
  });

  it('an existing database readable by others is made 0600; an existing folder keeps its mode', async (t) => {
    const dataDir = await mkdtemp(join(tmpdir(), 'chorus-modes-'));
    t.after(() => rm(dataDir, { recursive: true, force: true }));
    await chmod(dataDir, 0o750);
    const path = join(dataDir, 'chorus.db');
    await writeFile(path, '');
    await chmod(path, 0o644);
    const store = await openStore({ databaseUrl: '', dataDir, poolMax: 1, reply: DEFAULT_REPLY_SETTINGS });
    assert.equal(await modeOf(path), 0o600);
    assert.equal(await modeOf(dataDir), 0o750);
    await store.close();
  });
});
