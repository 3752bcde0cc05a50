/** Log lines stay small whatever a peer or client put in their fields, and secrets stay out. */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LOG_FIELD_LIMITS } from '../../../src/app/log-fields.ts';
import { createLogger } from '../../../src/app/logger.ts';

function capture() {
  const destination = new PassThrough();
  const lines: string[] = [];
  destination.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
  return { logger: createLogger({ level: 'info', destination }), lines };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('logger', () => {
  it('cuts long string fields, at any depth, with a marker saying how much was left out', async () => {
    const { logger, lines } = capture();
    const huge = 'k'.repeat(1024 * 1024);
    logger.warn({ kind: huge, nested: { detail: huge }, list: [huge] }, 'something odd');
    await flush();
    assert.equal(lines.length, 1);
    const line = lines[0] ?? '';
    assert.ok(line.length < 4 * LOG_FIELD_LIMITS.stringMaxChars + 500, `${line.length} characters`);
    const entry = JSON.parse(line) as { kind: string; nested: { detail: string }; list: string[] };
    const marker = `…[+${huge.length - LOG_FIELD_LIMITS.stringMaxChars} chars]`;
    assert.ok(entry.kind.endsWith(marker));
    assert.ok(entry.nested.detail.endsWith(marker));
    assert.ok(entry.list[0]?.endsWith(marker));
  });

  it('keeps the first items of a long array and stops at a depth', async () => {
    const { logger, lines } = capture();
    const deep = { a: { b: { c: { d: { e: 'x' } } } } };
    logger.info({ items: Array.from({ length: 1000 }, (_, i) => i), deep }, 'x');
    await flush();
    const entry = JSON.parse(lines[0] ?? '{}') as { items: unknown[]; deep: unknown };
    assert.equal(entry.items.length, LOG_FIELD_LIMITS.arrayMaxItems + 1);
    assert.equal(entry.items.at(-1), `…[+${1000 - LOG_FIELD_LIMITS.arrayMaxItems} items]`);
    assert.match(JSON.stringify(entry.deep), /nested too deep/);
  });

  it('leaves short fields alone and still redacts secrets in cut objects', async () => {
    const { logger, lines } = capture();
    logger.info({ token: 's3cret', scope: 'x', detail: 'y'.repeat(5000) }, 'x');
    await flush();
    const entry = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    assert.equal(entry.token, '[redacted]');
    assert.equal(entry.scope, 'x');
    assert.doesNotMatch(lines[0] ?? '', /s3cret/);
  });
});
