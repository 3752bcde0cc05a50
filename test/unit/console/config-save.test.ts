/** Config pages (rendering and patches), without HTTP; the reactions are in test/unit/config/reactions.test.ts. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configFromValues } from '../../../src/config/index.ts';
import {
  COMMON_PAGES,
  CORPUS_FEDERATION_PAGE,
  patchToSettings,
  renderPage,
  REPEATER_PAGE,
} from '../../../src/console/config-pages.ts';
import { HttpError } from '../../../src/console/errors.ts';

function badRequest(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    assert.ok(error instanceof HttpError);
    assert.equal(error.statusCode, 400);
    return error.detail;
  }
  assert.fail('expected a 400');
}

describe('config pages', () => {
  it('renders rows from the schema: names without the prefix, tri-states as words, secrets hidden', () => {
    const snapshot = configFromValues({
      CHORUS_CORPUS_COMMUNITY_TOKEN: 'shh',
      CHORUS_CORPUS_MERGE_ORDER: 'community,local',
      CHORUS_CORPUS_AUTO_ENROLL: 'auto',
    });
    const page = renderPage(CORPUS_FEDERATION_PAGE, snapshot, 'core');
    const row = (key: string) => page.fields.find((field) => field.key === key);
    assert.deepEqual(row('community_token'), {
      key: 'community_token',
      env_key: 'CHORUS_CORPUS_COMMUNITY_TOKEN',
      kind: 'string',
      default: '',
      current: '',
      source: 'env',
      description: 'Manual community Bearer token; empty uses the enrolled token.',
      group: 'Community',
      secret: true,
      is_set: true,
      read_only: false,
      restart_required: false,
    });
    assert.deepEqual(
      [row('auto_enroll')?.kind, row('auto_enroll')?.current, row('auto_enroll')?.choices],
      ['tristate', 'auto', ['auto', 'true', 'false']],
    );
    assert.equal(row('community_enabled')?.current, 'false');
    assert.equal(row('merge_order')?.current, 'community,local');
    assert.deepEqual([row('reply_answers_cap')?.min, row('reply_answers_cap')?.max], [32, 4096]);
    assert.ok(!JSON.stringify(page).includes('shh'));
    const repeater = renderPage(REPEATER_PAGE, snapshot, 'repeater');
    const keys = repeater.fields.map((field) => field.key);
    assert.ok(keys.includes('bundle_timeout_sec'));
    assert.deepEqual(keys.slice(-6), [
      'guard_enabled',
      'guard_phrases',
      'guard_exempt',
      'cleanup_scheduled',
      'cleanup_interval_sec',
      'cleanup_max_delete_per_round',
    ]);
    assert.equal(new Set(keys).size, keys.length, 'payload names are unique on a page');
    const server = COMMON_PAGES.find((candidate) => candidate.id === 'server');
    assert.ok(server);
    assert.ok(renderPage(server, snapshot, null).fields.every((field) => field.restart_required));
  });

  it('turns a patch into env keys and canonical values', () => {
    assert.deepEqual(
      patchToSettings(CORPUS_FEDERATION_PAGE, {
        remote_find_enabled: true,
        merge_order: 'local, community',
        community_enabled: 'true',
        auto_enroll: false,
        reply_snapshot_sec: '7',
        community_token: '',
        backfill_enabled: null,
      }),
      {
        CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'prefetch',
        CHORUS_CORPUS_MERGE_ORDER: ['local', 'community'],
        CHORUS_CORPUS_COMMUNITY_ENABLED: true,
        CHORUS_CORPUS_AUTO_ENROLL: false,
        CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: 7,
        CHORUS_CORPUS_BACKFILL_ENABLED: null,
      },
    );
    assert.deepEqual(patchToSettings(CORPUS_FEDERATION_PAGE, { remote_find_enabled: false }), {
      CHORUS_CORPUS_REMOTE_FIND_ENABLED: 'false',
    });
  });

  it('refuses unknown, hidden, read-only and invalid fields naming them', () => {
    assert.match(
      badRequest(() => patchToSettings(CORPUS_FEDERATION_PAGE, {})),
      /empty/,
    );
    assert.equal(
      badRequest(() => patchToSettings(CORPUS_FEDERATION_PAGE, { fed_enabled: 'true' })),
      'values.fed_enabled: unknown field of corpus_federation',
    );
    assert.match(
      badRequest(() => patchToSettings(CORPUS_FEDERATION_PAGE, { on_remote_failure: 'local_only' })),
      /on_remote_failure/,
    );
    assert.match(
      badRequest(() => patchToSettings(CORPUS_FEDERATION_PAGE, { merge_order: 'local,fed' })),
      /merge_order/,
    );
    assert.match(
      badRequest(() => patchToSettings(CORPUS_FEDERATION_PAGE, { find_cache_sec: 1 })),
      /values\.find_cache_sec: .*5\.\.600/,
    );
    assert.match(
      badRequest(() => patchToSettings(CORPUS_FEDERATION_PAGE, { community_token: 42 })),
      /expected a string/,
    );
    const storage = COMMON_PAGES.find((page) => page.id === 'storage');
    assert.ok(storage);
    assert.match(
      badRequest(() => patchToSettings(storage, { data_dir: 'x' })),
      /values\.data_dir: read-only/,
    );
  });
});
