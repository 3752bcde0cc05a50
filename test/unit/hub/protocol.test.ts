import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { bearerToken, newCorpusToken, sameSecret, tokenHash } from '../../../src/hub/tokens.ts';
import { describeErrors } from '../../../src/hub/validation.ts';

describe('hub tokens', () => {
  it('issues pc_ tokens of 32 random bytes and hashes them with SHA-256', () => {
    const token = newCorpusToken();
    assert.match(token, /^pc_[A-Za-z0-9_-]{43}$/);
    assert.notEqual(newCorpusToken(), token);
    assert.equal(tokenHash(token), createHash('sha256').update(token).digest('hex'));
  });

  it('reads the Bearer scheme case-insensitively and nothing else', () => {
    assert.equal(bearerToken('Bearer pc_abc'), 'pc_abc');
    assert.equal(bearerToken('bearer   pc_abc '), 'pc_abc');
    assert.equal(bearerToken('Basic pc_abc'), null);
    assert.equal(bearerToken('Bearer'), null);
    assert.equal(bearerToken('Bearer a b'), null);
    assert.equal(bearerToken(undefined), null);
  });

  it('compares secrets whatever their lengths', () => {
    assert.equal(sameSecret('abc', 'abc'), true);
    assert.equal(sameSecret('abc', 'abcd'), false);
    assert.equal(sameSecret('', 'abc'), false);
  });
});

describe('hub validation details', () => {
  const error = (keyword: string, instancePath: string, params: Record<string, unknown>, message?: string) => ({
    keyword,
    instancePath,
    params,
    ...(message !== undefined ? { message } : {}),
  });

  it('names the missing field, the deepest failing field, and the allowed values of a union', () => {
    assert.equal(
      describeErrors([error('required', '/context', { requiredProperties: ['keywords'] })], 'body'),
      'body.context.keywords: required',
    );
    assert.equal(
      describeErrors(
        [
          error('maxItems', '/context/answers', { limit: 2 }, 'must not have more than 2 items'),
          error('type', '/context/answers/0/count', { type: 'integer' }, 'must be integer'),
        ],
        'body',
      ),
      'body.context.answers.0.count: must be integer',
    );
    assert.equal(
      describeErrors(
        [
          error('const', '/op', { allowedValue: 'insert' }),
          error('const', '/op', { allowedValue: 'upsert_answer' }),
          error('anyOf', '/op', {}),
        ],
        'body',
      ),
      'body.op: expected one of insert, upsert_answer',
    );
    assert.equal(
      describeErrors(
        [
          error('maximum', '/w', { limit: 5 }, 'must be <= 5'),
          error('type', '/w', { type: 'null' }, 'must be null'),
          error('anyOf', '/w', {}),
        ],
        'query',
      ),
      'query.w: must be <= 5',
    );
  });
});
