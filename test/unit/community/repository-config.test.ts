/**
 * The shared community repository (docs/rules.md#corpus-shared: lazy, URLs and token only, rebuilt on credential
 * change) and the community-statistics config section.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommunityClient } from '../../../src/community/community-client.ts';
import { SharedCommunityRepository, type CommunityCredentials } from '../../../src/community/shared-repository.ts';
import { checkHubEndpoint, configFromValues } from '../../../src/config/index.ts';
import { silentLog } from '../../../src/common/log.ts';

function repository(initial: CommunityCredentials) {
  let credentials = initial;
  let fetches = 0;
  const built: CommunityCredentials[] = [];
  const repo = new SharedCommunityRepository(
    () => credentials,
    (c) => {
      built.push(c);
      return new CommunityClient({
        bases: c.bases,
        token: c.token,
        timeouts: () => ({ readMs: 1000, contributeMs: 1000, usageMs: 1000 }),
        onAuthFailure: () => undefined,
        fetch: async () => {
          fetches++;
          throw new Error('no network in this test');
        },
        log: silentLog,
        now: () => 0,
      });
    },
  );
  return {
    repo,
    built,
    fetches: () => fetches,
    set: (next: CommunityCredentials) => {
      credentials = next;
    },
  };
}

const ONE: CommunityCredentials = { buildable: true, bases: ['http://hub/v1/corpus'], token: 't1' };

describe('shared community repository', () => {
  it('is built on first access, holds only bases and token, and is reused', () => {
    const r = repository(ONE);
    assert.equal(r.built.length, 0, 'nothing is built before it is asked for');
    const client = r.repo.get();
    assert.ok(client);
    assert.deepEqual([client.bases, client.token], [['http://hub/v1/corpus'], 't1']);
    assert.equal(r.repo.get(), client);
    assert.equal(r.built.length, 1);
    assert.equal(r.fetches(), 0, 'building connects nowhere');
  });

  it('rebuild() drops it; new credentials (equal or not) are noticed on the next access', () => {
    const r = repository(ONE);
    const first = r.repo.get();
    r.set({ ...ONE, bases: [...ONE.bases] });
    assert.equal(r.repo.get(), first, 'equal credentials keep the client');
    r.set({ ...ONE, token: 't2' });
    const second = r.repo.get();
    assert.notEqual(second, first);
    assert.equal(second?.token, 't2');
    r.repo.rebuild();
    assert.notEqual(r.repo.get(), second);
    assert.deepEqual(r.repo.counters, { builds: 3, rebuilds: 1 });
    r.set({ buildable: false, bases: [], token: '' });
    assert.equal(r.repo.get(), null);
  });
});

describe('community statistics settings', () => {
  it('defaults: enabled, no hub, 300 s heartbeat, 900 s snapshot, no token', () => {
    assert.deepEqual(
      { ...configFromValues().communityStats },
      {
        enabled: true,
        endpoint: '',
        intervalSec: 300,
        corpusHotSnapshotIntervalSec: 900,
        token: '',
      },
    );
  });

  it('bounds and the endpoint check', () => {
    assert.throws(() => configFromValues({ CHORUS_COMMUNITY_STATS_INTERVAL_SEC: '59' }));
    assert.throws(() => configFromValues({ CHORUS_COMMUNITY_STATS_INTERVAL_SEC: '3601' }));
    assert.throws(() => configFromValues({ CHORUS_COMMUNITY_STATS_CORPUS_HOT_SNAPSHOT_INTERVAL_SEC: '299' }));
    assert.throws(() => configFromValues({ CHORUS_COMMUNITY_STATS_ENDPOINT: 'ftp://x' }));
    assert.deepEqual(checkHubEndpoint(' http://127.0.0.1:8099/v1/heartbeat/ '), {
      ok: true,
      value: 'http://127.0.0.1:8099/v1/heartbeat',
    });
    assert.deepEqual(checkHubEndpoint(''), { ok: true, value: '' });
    assert.equal(configFromValues({ CHORUS_COMMUNITY_STATS_TOKEN: 's' }).communityStats.token, 's');
  });
});
