import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Field } from '../../../src/config/field.ts';
import {
  SECTIONS,
  configFromValues,
  fieldIndex,
  normaliseMergeOrder,
  resolveRemoteFindMode,
  sectionJsonSchema,
  type ConfigSnapshot,
} from './api.ts';

const byKey = fieldIndex();
function f(key: string): Field {
  const found = byKey.get(key);
  assert.ok(found, `field ${key} is declared`);
  return found;
}
function value(key: string, input: unknown): unknown {
  const parsed = f(key).parse(input);
  assert.ok(parsed.ok, `${key} accepts ${JSON.stringify(input)}: ${parsed.ok ? '' : parsed.problem}`);
  return parsed.value;
}
function problem(key: string, input: unknown): string {
  const parsed = f(key).parse(input);
  assert.equal(parsed.ok, false, `${key} refuses ${JSON.stringify(input)}`);
  return parsed.ok ? '' : parsed.problem;
}

describe('declarations', () => {
  it('every default is accepted by its own parser and parses to itself', () => {
    for (const [key, field] of byKey) {
      const parsed = field.parse(field.default);
      assert.ok(parsed.ok, key);
      assert.deepEqual(parsed.value, field.default, key);
    }
  });

  it('every field has a one-line description, a group and a key under its section prefix', () => {
    for (const section of SECTIONS) {
      for (const field of section.fields) {
        assert.ok(field.env.startsWith(section.prefix), field.env);
        assert.match(field.description, /^[A-Z].*\.$/, field.env);
        assert.ok(!field.description.includes('\n'), field.env);
        assert.ok(field.group.length > 0, field.env);
      }
    }
  });

  it('derives camelCase names and types from the declarations', () => {
    const snapshot: ConfigSnapshot = configFromValues({});
    // Compile-time checks: these assignments fail to typecheck if the derived types drift.
    const messagesCap: number = snapshot.performance.replyMessagesCap;
    const fed: 'auto' | boolean = snapshot.corpus.fedEnabled;
    const order: readonly ('local' | 'fed' | 'community')[] = snapshot.corpus.mergeOrder;
    const role: 'primary' | 'worker' = snapshot.server.shardRole;
    const phrases: readonly string[] = snapshot.guard.phrases;
    assert.equal(messagesCap, 16);
    assert.equal(fed, 'auto');
    assert.deepEqual(order, ['local', 'fed', 'community']);
    assert.equal(role, 'primary');
    assert.deepEqual(phrases, []);
    assert.deepEqual(Object.keys(snapshot.backfill), ['enabled', 'maxPerMinute', 'batchSize', 'intervalSec']);
    assert.deepEqual(Object.keys(snapshot.remote), [
      'remoteMaxConcurrent',
      'remoteTimeoutSec',
      'contributeTimeoutSec',
      'withdrawnPollSec',
      'usageCacheSec',
    ]);
  });

  it('publishes a JSON Schema per section with bounds, defaults and hints', () => {
    const server = sectionJsonSchema(SECTIONS[0]) as unknown as {
      properties: Record<string, Record<string, unknown>>;
    };
    assert.deepEqual(
      {
        type: server.properties.CHORUS_PORT?.type,
        min: server.properties.CHORUS_PORT?.minimum,
        max: server.properties.CHORUS_PORT?.maximum,
        def: server.properties.CHORUS_PORT?.default,
      },
      { type: 'integer', min: 1, max: 65535, def: 8088 },
    );
    assert.equal(server.properties.CHORUS_DATABASE_URL?.['x-secret'], true);
    assert.equal(server.properties.CHORUS_HOST?.['x-group'], 'HTTP');
    assert.deepEqual(server.properties.CHORUS_LOG_LEVEL?.enum, ['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
  });
});

describe('tri-states and booleans', () => {
  it('parses auto/true/false and the switch words, trimmed and case-insensitive', () => {
    const key = 'CHORUS_CORPUS_FED_ENABLED';
    for (const word of ['true', ' TRUE ', 'Yes', 'on', '1', true, 1])
      assert.equal(value(key, word), true, String(word));
    for (const word of ['false', 'No', ' OFF', '0', false, 0]) assert.equal(value(key, word), false, String(word));
    for (const word of ['auto', 'AUTO ', '', '   ']) assert.equal(value(key, word), 'auto', JSON.stringify(word));
    assert.match(problem(key, 'maybe'), /expected auto, true or false/);
    problem(key, 2);
  });

  it('an empty tri-state is auto even where the default is false', () => {
    assert.equal(f('CHORUS_CORPUS_COMMUNITY_ENABLED').default, false);
    assert.equal(value('CHORUS_CORPUS_COMMUNITY_ENABLED', ''), 'auto');
  });

  it('booleans take the same words, refuse auto, and an empty value is the default', () => {
    assert.equal(value('CHORUS_CORPUS_BACKFILL_ENABLED', ' On '), true);
    assert.equal(value('CHORUS_CORPUS_BACKFILL_ENABLED', 'no'), false);
    assert.equal(value('CHORUS_CORPUS_BACKFILL_ENABLED', ''), false);
    assert.equal(value('LLM_CORPUS_LEARN_GUARD_ENABLED', ''), true);
    assert.match(problem('CHORUS_CORPUS_BACKFILL_ENABLED', 'auto'), /expected true or false/);
  });
});

describe('numbers', () => {
  it('integers within bounds, from text or TOML numbers', () => {
    assert.equal(value('CHORUS_PORT', '8080'), 8080);
    assert.equal(value('CHORUS_PORT', ' 1 '), 1);
    assert.equal(value('CHORUS_PORT', 65535), 65535);
    assert.equal(value('CHORUS_PORT', ''), 8088);
    for (const bad of ['0', '65536', '80.5', 'abc', '8080abc', 80.5, -1, true]) {
      assert.equal(problem('CHORUS_PORT', bad), 'expected an integer in 1..65535', String(bad));
    }
    assert.equal(value('CHORUS_CORPUS_REPLY_ANSWERS_CAP', '32'), 32);
    problem('CHORUS_CORPUS_REPLY_ANSWERS_CAP', '31');
    assert.equal(value('CHORUS_CORPUS_REPLY_QUERY_TIMEOUT_SEC', '30'), 30);
    problem('CHORUS_CORPUS_REPLY_QUERY_TIMEOUT_SEC', '1.5');
    problem('CHORUS_CORPUS_BACKFILL_INTERVAL_SEC', '299');
  });

  it('floats within bounds', () => {
    assert.equal(value('CHORUS_CORPUS_REMOTE_TIMEOUT_SEC', '0.5'), 0.5);
    assert.equal(value('CHORUS_CORPUS_REMOTE_TIMEOUT_SEC', '1e1'), 10);
    assert.equal(value('CHORUS_CORPUS_REMOTE_TIMEOUT_SEC', 120), 120);
    assert.equal(problem('CHORUS_CORPUS_REMOTE_TIMEOUT_SEC', '0.49'), 'expected a number in 0.5..120');
    problem('CHORUS_CORPUS_REMOTE_TIMEOUT_SEC', '120.01');
    problem('CHORUS_CORPUS_REMOTE_TIMEOUT_SEC', 'fast');
    problem('CHORUS_CORPUS_REMOTE_TIMEOUT_SEC', Infinity);
    assert.equal(value('CHORUS_CORPUS_CONTRIBUTE_TIMEOUT_SEC', '300'), 300);
  });
});

describe('lists', () => {
  it('split text on | or newlines, trim, drop empties; arrays of strings as they are', () => {
    assert.deepEqual(value('LLM_CORPUS_LEARN_GUARD_PHRASES', 'a| b |\n c ||\n'), ['a', 'b', 'c']);
    assert.deepEqual(value('LLM_CORPUS_LEARN_GUARD_PHRASES', ['x', ' y ', '']), ['x', 'y']);
    assert.deepEqual(value('LLM_CORPUS_LEARN_GUARD_EXEMPT', ''), []);
    assert.deepEqual(value('LLM_CORPUS_LEARN_GUARD_PHRASES', 'one, two'), ['one, two']);
    assert.equal(problem('LLM_CORPUS_LEARN_GUARD_PHRASES', [1, 2]), 'expected a list of strings');
  });

  it('merge order keeps known names once, lower-cased, empty means all three', () => {
    assert.deepEqual(value('CHORUS_CORPUS_MERGE_ORDER', ' Community, LOCAL,bogus,local'), ['community', 'local']);
    assert.deepEqual(value('CHORUS_CORPUS_MERGE_ORDER', ''), ['local', 'fed', 'community']);
    assert.deepEqual(value('CHORUS_CORPUS_MERGE_ORDER', 'x,y'), ['local', 'fed', 'community']);
    assert.deepEqual(value('CHORUS_CORPUS_MERGE_ORDER', ['fed', 'FED', 'local']), ['fed', 'local']);
    assert.deepEqual(normaliseMergeOrder(['community', 'fed']), ['community', 'fed']);
  });
});

describe('enums', () => {
  it('match case-insensitively and name the choices when refused', () => {
    assert.equal(value('CHORUS_LOG_LEVEL', ' DEBUG '), 'debug');
    assert.equal(value('CHORUS_LOG_LEVEL', ''), 'info');
    assert.equal(problem('CHORUS_LOG_LEVEL', 'verbose'), 'expected one of trace, debug, info, warn, error, fatal');
    assert.equal(value('CHORUS_CORPUS_MERGE_STRATEGY', 'merge_counts'), 'merge_counts');
    assert.equal(value('CHORUS_SHARD_ROLE', 'Worker'), 'worker');
    problem('CHORUS_CORPUS_ON_REMOTE_FAILURE', 'fail');
  });

  it('remote find accepts true and the on-words as prefetch, off-words as false', () => {
    const key = 'CHORUS_CORPUS_REMOTE_FIND_ENABLED';
    for (const word of ['true', 'TRUE', '1', 'yes', 'on', true, 'prefetch'])
      assert.equal(value(key, word), 'prefetch', String(word));
    for (const word of ['false', '0', 'no', 'off', 'OFF', false]) assert.equal(value(key, word), 'false', String(word));
    assert.equal(value(key, 'sync'), 'sync');
    assert.equal(value(key, 'auto'), 'auto');
    assert.equal(value(key, ''), 'auto');
    problem(key, 'always');
  });

  it('resolveRemoteFindMode maps auto and false to off', () => {
    assert.equal(resolveRemoteFindMode('auto'), 'off');
    assert.equal(resolveRemoteFindMode('false'), 'off');
    assert.equal(resolveRemoteFindMode('prefetch'), 'prefetch');
    assert.equal(resolveRemoteFindMode('sync'), 'sync');
  });
});

describe('server strings', () => {
  it('normalises the base URL to a leading slash and no trailing slash', () => {
    assert.equal(value('CHORUS_BASE_URL', '/'), '');
    assert.equal(value('CHORUS_BASE_URL', ''), '');
    assert.equal(value('CHORUS_BASE_URL', 'chorus/'), '/chorus');
    assert.equal(value('CHORUS_BASE_URL', ' /a//b/ '), '/a/b');
    problem('CHORUS_BASE_URL', 'http://example.com/chorus');
    problem('CHORUS_BASE_URL', '/a b');
  });

  it('accepts only empty or postgres URLs for the database, without echoing the value', () => {
    assert.equal(value('CHORUS_DATABASE_URL', ''), '');
    assert.equal(value('CHORUS_DATABASE_URL', 'postgres://u:pw@db:5432/chorus'), 'postgres://u:pw@db:5432/chorus');
    assert.equal(value('CHORUS_DATABASE_URL', 'postgresql://db/chorus'), 'postgresql://db/chorus');
    const text = problem('CHORUS_DATABASE_URL', 'mysql://root:hunter2@db/x');
    assert.ok(!text.includes('hunter2'));
    problem('CHORUS_DATABASE_URL', 'chorus.db');
    assert.equal(f('CHORUS_DATABASE_URL').secret, true);
    assert.equal(f('CHORUS_CORPUS_COMMUNITY_TOKEN').secret, true);
  });

  it('refuses an empty data folder', () => {
    problem('CHORUS_DATA_DIR', ' ');
    assert.equal(f('CHORUS_DATA_DIR').consoleSettable, false);
  });
});
