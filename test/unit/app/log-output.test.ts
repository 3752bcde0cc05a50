/** CHORUS_LOG_FORMAT: JSON lines, pretty lines, auto by terminal, a switch while running; the ring keeps JSON. */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LogOutput } from '../../../src/app/log-output.ts';
import { createLogger } from '../../../src/app/logger.ts';
import { LogRing } from '../../../src/ops/logs/index.ts';

function sink(tty = false) {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (tty) stream.isTTY = true;
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { stream, text: () => text };
}
const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('log output format', () => {
  it('json writes the lines as they are; pretty writes readable lines; the ring keeps JSON either way', async () => {
    const out = sink();
    const output = new LogOutput(out.stream, 'json');
    const ring = new LogRing();
    const logger = createLogger({ level: 'info', destination: out.stream, output, ring });
    logger.warn({ scope: 'store', rows: 3, token: 'secret-value' }, 'database slow');
    await flush();
    const json = JSON.parse(out.text().trim()) as Record<string, unknown>;
    assert.equal(json.msg, 'database slow');
    assert.equal(json.token, '[redacted]');

    output.setFormat('pretty');
    logger.warn({ scope: 'store', rows: 4 }, 'database slower');
    await flush();
    const pretty = out.text().split('\n').filter(Boolean)[1] ?? '';
    assert.match(pretty, /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] WARN: database slower/);
    assert.match(pretty, /rows: 4|"rows":4/);
    assert.throws(() => JSON.parse(pretty));
    assert.doesNotMatch(pretty, /\u001b\[/, 'no colours when the destination is not a terminal');
    assert.deepEqual(
      ring.recent({}, 10).map((e) => [e.message, e.fields.rows]),
      [
        ['database slow', 3],
        ['database slower', 4],
      ],
    );
  });

  it('auto is pretty and coloured on a terminal, JSON elsewhere', async () => {
    const terminal = sink(true);
    createLogger({ level: 'info', destination: terminal.stream, output: new LogOutput(terminal.stream, 'auto') }).info(
      'hello',
    );
    const file = sink(false);
    createLogger({ level: 'info', destination: file.stream, output: new LogOutput(file.stream, 'auto') }).info('hello');
    await flush();
    assert.match(terminal.text(), /\u001b\[\d+mINFO/);
    assert.equal((JSON.parse(file.text()) as { msg: string }).msg, 'hello');
  });
});
