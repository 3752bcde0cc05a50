/** resolveActivation (docs/rules.md#corpus-sources, #corpus-contribute). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configFromValues } from '../../../src/config/index.ts';
import { resolveActivation, type StoredEnrollment } from '../../../src/corpus/activation.ts';
import { NOW_SEC } from '../../support/corpus-fakes.ts';

function enrollment(fields: Partial<StoredEnrollment> = {}): StoredEnrollment {
  return {
    apiBase: 'https://stored.example/v1/corpus/',
    token: 'stored-token',
    enrolledAt: NOW_SEC - 100,
    expiresAt: null,
    contribute: null,
    ...fields,
  };
}

function resolve(
  values: Record<string, unknown>,
  options: {
    enrollment?: StoredEnrollment | null;
    derivedApiBase?: string;
    fedConfigured?: boolean;
    statsEnabled?: boolean;
  } = {},
) {
  return resolveActivation({
    corpus: configFromValues(values).corpus,
    enrollment: options.enrollment ?? null,
    nowSec: NOW_SEC,
    answerThreshold: 3,
    replyBudgetMs: 800,
    ...(options.derivedApiBase !== undefined ? { derivedApiBase: options.derivedApiBase } : {}),
    ...(options.fedConfigured !== undefined ? { fedConfigured: options.fedConfigured } : {}),
    ...(options.statsEnabled !== undefined ? { statsEnabled: options.statsEnabled } : {}),
  });
}

const MANUAL = {
  CHORUS_CORPUS_COMMUNITY_API_BASE: 'https://manual.example/v1/corpus/',
  CHORUS_CORPUS_COMMUNITY_TOKEN: 'manual-token',
};

describe('resolveActivation', () => {
  it('defaults: community not wanted, auto_enroll off, composite inactive, remote find off', () => {
    const a = resolve({});
    assert.equal(a.community.wanted, false);
    assert.equal(a.community.autoEnroll, false);
    assert.equal(a.community.on, false);
    assert.equal(a.community.configured, false);
    assert.equal(a.compositeActive, false);
    assert.equal(a.fedOn, false);
    assert.equal(a.remoteFindMode, 'off');
    assert.deepEqual([...a.mergeOrder], ['local', 'fed', 'community']);
    assert.equal(a.mergeStrategy, 'local_first');
    assert.equal(a.onRemoteFailure, 'local_only');
    assert.deepEqual(a.community.apiBases, []);
    assert.equal(a.community.token, '');
  });

  it('AUTO_ENROLL auto + COMMUNITY_ENABLED true with a hub to enroll with: composite active without credentials', () => {
    const values = { CHORUS_CORPUS_AUTO_ENROLL: 'auto', CHORUS_CORPUS_COMMUNITY_ENABLED: 'true' };
    const a = resolve(values, { derivedApiBase: 'https://hub.example/v1/corpus' });
    assert.equal(a.community.wanted, true);
    assert.equal(a.community.autoEnroll, true);
    assert.equal(a.community.configured, false);
    assert.equal(a.community.on, true);
    assert.equal(a.compositeActive, true);
    assert.equal(a.community.hint, null);
  });

  it('auto enrollment without any hub endpoint: not configured, composite inactive, and a hint says why', () => {
    const a = resolve({ CHORUS_CORPUS_AUTO_ENROLL: 'true', CHORUS_CORPUS_COMMUNITY_ENABLED: 'true' });
    assert.equal(a.community.autoEnroll, true);
    assert.equal(a.community.on, false);
    assert.equal(a.compositeActive, false);
    assert.deepEqual(a.community.hint, { code: 'hub_missing', keys: ['CHORUS_COMMUNITY_STATS_ENDPOINT'] });
  });

  it('configurations that can never enroll are not active, and the hint names what is missing', () => {
    const wanted = { CHORUS_CORPUS_AUTO_ENROLL: 'true', CHORUS_CORPUS_COMMUNITY_ENABLED: 'true' };
    const cases = [
      {
        what: 'a manual API base without a token, no hub endpoint',
        values: { ...wanted, CHORUS_CORPUS_COMMUNITY_API_BASE: 'https://manual.example/v1/corpus' },
        options: {},
        hint: { code: 'manual_token_missing', keys: ['CHORUS_CORPUS_COMMUNITY_TOKEN'] },
      },
      {
        what: 'a hub endpoint with statistics reporting off',
        values: wanted,
        options: { derivedApiBase: 'https://hub.example/v1/corpus', statsEnabled: false },
        hint: { code: 'stats_disabled', keys: ['CHORUS_COMMUNITY_STATS_ENABLED'] },
      },
      {
        what: 'a manual token without a base, auto-enroll off',
        values: { CHORUS_CORPUS_COMMUNITY_ENABLED: 'true', CHORUS_CORPUS_COMMUNITY_TOKEN: 't' },
        options: {},
        hint: { code: 'manual_base_missing', keys: ['CHORUS_CORPUS_COMMUNITY_API_BASE'] },
      },
      {
        what: 'nothing configured, auto-enroll off',
        values: { CHORUS_CORPUS_COMMUNITY_ENABLED: 'true' },
        options: {},
        hint: {
          code: 'credentials_missing',
          keys: ['CHORUS_CORPUS_AUTO_ENROLL', 'CHORUS_CORPUS_COMMUNITY_API_BASE', 'CHORUS_CORPUS_COMMUNITY_TOKEN'],
        },
      },
    ];
    for (const { what, values, options, hint } of cases) {
      const a = resolve(values, options);
      assert.deepEqual([a.community.wanted, a.community.on, a.compositeActive], [true, false, false], what);
      assert.deepEqual(a.community.hint, hint, what);
    }
    // The same endpoint with reporting on can enroll: active, no hint.
    const enrolling = resolve(wanted, { derivedApiBase: 'https://hub.example/v1/corpus', statsEnabled: true });
    assert.deepEqual([enrolling.compositeActive, enrolling.community.hint], [true, null]);
  });

  it('AUTO_ENROLL auto + COMMUNITY_ENABLED false: everything off', () => {
    const a = resolve({ CHORUS_CORPUS_AUTO_ENROLL: 'auto', CHORUS_CORPUS_COMMUNITY_ENABLED: 'false' });
    assert.equal(a.community.wanted, false);
    assert.equal(a.community.autoEnroll, false);
    assert.equal(a.compositeActive, false);
  });

  it('COMMUNITY_ENABLED true without credentials and without auto-enroll: wanted but not on', () => {
    const a = resolve({ CHORUS_CORPUS_COMMUNITY_ENABLED: 'true' });
    assert.equal(a.community.wanted, true);
    assert.equal(a.community.autoEnroll, false);
    assert.equal(a.community.on, false);
    assert.equal(a.compositeActive, false);
  });

  it('COMMUNITY_ENABLED auto + a stored enrollment only: not wanted, composite inactive', () => {
    const a = resolve({ CHORUS_CORPUS_COMMUNITY_ENABLED: 'auto' }, { enrollment: enrollment() });
    assert.equal(a.community.enrolledValid, true);
    assert.equal(a.community.configured, true);
    assert.equal(a.community.wanted, false);
    assert.equal(a.community.on, false);
    assert.equal(a.compositeActive, false);
  });

  it('manual token + base with COMMUNITY_ENABLED auto: wanted, on, composite active', () => {
    const a = resolve({ CHORUS_CORPUS_COMMUNITY_ENABLED: 'auto', ...MANUAL });
    assert.equal(a.community.manualConfigured, true);
    assert.equal(a.community.wanted, true);
    assert.equal(a.community.autoEnroll, false, 'AUTO_ENROLL defaults to false');
    const auto = resolve({ CHORUS_CORPUS_COMMUNITY_ENABLED: 'auto', CHORUS_CORPUS_AUTO_ENROLL: 'auto', ...MANUAL });
    assert.equal(auto.community.autoEnroll, true, 'auto_enroll auto follows wanted');
    assert.equal(a.community.on, true);
    assert.equal(a.compositeActive, true);
    assert.deepEqual(a.community.apiBases, ['https://manual.example/v1/corpus']);
    assert.equal(a.community.token, 'manual-token');
  });

  it('a manual token without a base is not manual configuration', () => {
    const a = resolve({ CHORUS_CORPUS_COMMUNITY_ENABLED: 'auto', CHORUS_CORPUS_COMMUNITY_TOKEN: 't' });
    assert.equal(a.community.manualConfigured, false);
    assert.equal(a.community.wanted, false);
  });

  it('an expired enrollment is not configured; one expiring this very second still is', () => {
    const values = { CHORUS_CORPUS_COMMUNITY_ENABLED: 'true' };
    const expired = resolve(values, { enrollment: enrollment({ expiresAt: NOW_SEC - 1 }) });
    assert.equal(expired.community.enrolledValid, false);
    assert.equal(expired.community.configured, false);
    assert.equal(expired.community.on, false);
    assert.equal(expired.community.enrollment, null);
    assert.equal(expired.community.token, '');
    assert.deepEqual(expired.community.apiBases, []);
    const lastSecond = resolve(values, { enrollment: enrollment({ expiresAt: NOW_SEC }) });
    assert.equal(lastSecond.community.enrolledValid, true);
    assert.equal(lastSecond.community.on, true);
    assert.equal(lastSecond.community.token, 'stored-token');
  });

  it('an enrollment without a token or base is not valid', () => {
    assert.equal(resolve({}, { enrollment: enrollment({ token: '' }) }).community.enrolledValid, false);
    assert.equal(resolve({}, { enrollment: enrollment({ apiBase: '' }) }).community.enrolledValid, false);
  });

  it('contribute: explicit false off; stored policy false off even with explicit true; auto on', () => {
    const valid = enrollment({ contribute: false });
    assert.equal(resolve({ CHORUS_CORPUS_COMMUNITY_CONTRIBUTE: 'false' }).community.contributeEnabled, false);
    assert.equal(resolve({ CHORUS_CORPUS_COMMUNITY_CONTRIBUTE: 'false' }).community.contributeWanted, false);
    const policyOff = resolve({ CHORUS_CORPUS_COMMUNITY_CONTRIBUTE: 'true' }, { enrollment: valid });
    assert.equal(policyOff.community.contributeWanted, true);
    assert.equal(policyOff.community.contributeEnabled, false);
    assert.equal(
      resolve({ CHORUS_CORPUS_COMMUNITY_CONTRIBUTE: 'auto' }, { enrollment: valid }).community.contributeEnabled,
      false,
    );
    assert.equal(resolve({}).community.contributeWanted, true);
    assert.equal(resolve({}).community.contributeEnabled, true);
    const policyOn = resolve({}, { enrollment: enrollment({ contribute: true }) });
    assert.equal(policyOn.community.contributeEnabled, true);
  });

  it('api base order: the manual list, else derived then stored', () => {
    const stored = enrollment();
    const all = resolve(MANUAL, { enrollment: stored, derivedApiBase: 'https://derived.example/v1/corpus' });
    assert.deepEqual(all.community.apiBases, ['https://manual.example/v1/corpus']);
    const derived = resolve({}, { enrollment: stored, derivedApiBase: 'https://derived.example/v1/corpus/' });
    assert.deepEqual(derived.community.apiBases, ['https://derived.example/v1/corpus']);
    const storedOnly = resolve({}, { enrollment: stored });
    assert.deepEqual(storedOnly.community.apiBases, ['https://stored.example/v1/corpus']);
    assert.deepEqual(resolve({}).community.apiBases, []);
    // Several manual bases, comma-separated: every one, in order, for fail-over.
    const several = resolve({
      ...MANUAL,
      CHORUS_CORPUS_COMMUNITY_API_BASE:
        ' https://a.example/v1/corpus/ , https://b.example/v1/corpus,https://a.example/v1/corpus',
    });
    assert.deepEqual(several.community.apiBases, ['https://a.example/v1/corpus', 'https://b.example/v1/corpus']);
    // The token: manual first, else the stored one.
    assert.equal(all.community.token, 'manual-token');
    assert.equal(storedOnly.community.token, 'stored-token');
  });

  it('remote find mode: auto and false off, true prefetch, prefetch prefetch, sync sync', () => {
    const mode = (value: string) => resolve({ CHORUS_CORPUS_REMOTE_FIND_ENABLED: value }).remoteFindMode;
    assert.equal(mode('auto'), 'off');
    assert.equal(mode('false'), 'off');
    assert.equal(mode('true'), 'prefetch');
    assert.equal(mode('prefetch'), 'prefetch');
    assert.equal(mode('sync'), 'sync');
  });

  it('the federated source never contributes, whether enabled explicitly or by configuration', () => {
    const explicit = resolve({ CHORUS_CORPUS_FED_ENABLED: 'true' });
    assert.equal(explicit.fedOn, true);
    assert.equal(explicit.fedContribute, false);
    assert.equal(explicit.compositeActive, true, 'fed_on alone activates the composite (docs/rules.md#corpus-sources)');
    const configured = resolve({}, { fedConfigured: true });
    assert.equal(configured.fedOn, true);
    assert.equal(configured.fedConfigured, true);
    assert.equal(configured.fedContribute, false);
    const off = resolve({ CHORUS_CORPUS_FED_ENABLED: 'false' }, { fedConfigured: true });
    assert.equal(off.fedOn, false);
    assert.equal(off.fedContribute, false);
  });

  it('merge order and strategy come from the configuration', () => {
    const a = resolve({
      CHORUS_CORPUS_MERGE_ORDER: 'community, LOCAL,bogus',
      CHORUS_CORPUS_MERGE_STRATEGY: 'merge_counts',
    });
    assert.deepEqual([...a.mergeOrder], ['community', 'local']);
    assert.equal(a.mergeStrategy, 'merge_counts');
  });
});
