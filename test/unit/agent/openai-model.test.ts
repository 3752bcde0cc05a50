/**
 * The language-model client (src/agent/openai-model.ts) against the stand-in model server over
 * real HTTP: plain and streamed answers, tool calls both ways, usage, and each failure code,
 * with the API key absent from every error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ModelCallError } from '../../../src/agent/model.ts';
import { OpenAiModel } from '../../../src/agent/openai-model.ts';
import { startModelStandIn, type ModelStandIn } from '../../support/model-stand-in.ts';

const KEY = 'sk-test-secret-key-0123456789';

function client(standIn: ModelStandIn, stream: boolean, timeoutMs = 5000) {
  return new OpenAiModel({
    baseUrl: standIn.baseUrl,
    apiKey: KEY,
    models: { chat: 'chat-model', background: 'slow-model' },
    temperature: 0.5,
    timeoutMs,
    stream,
  });
}

async function failure(promise: Promise<unknown>): Promise<ModelCallError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ModelCallError, `expected a ModelCallError, got ${String(error)}`);
    assert.ok(!error.message.includes(KEY), 'the key is not in the detail');
    return error;
  }
  assert.fail('expected the call to fail');
}

describe('OpenAiModel against the stand-in', () => {
  let standIn: ModelStandIn;
  before(async () => {
    standIn = await startModelStandIn();
  });
  after(() => standIn.close());

  for (const stream of [false, true]) {
    const how = stream ? 'streamed' : 'plain';

    it(`${how}: text, usage, model and the request as sent`, async () => {
      standIn.script({ text: '你好呀，今天吃了吗', usage: { prompt: 31, completion: 7 } });
      const from = standIn.requests.length;
      const answer = await client(standIn, stream).chat({
        role: 'chat',
        messages: [
          { role: 'system', content: '你是群友' },
          { role: 'user', content: '在吗', name: 'member_a' },
        ],
      });
      assert.equal(answer.text, '你好呀，今天吃了吗');
      assert.deepEqual(answer.toolCalls, []);
      assert.deepEqual(answer.usage, { promptTokens: 31, completionTokens: 7 });
      assert.equal(answer.model, 'chat-model');
      const sent = standIn.requests[from]!;
      assert.equal(sent.body.model, 'chat-model');
      assert.equal(sent.body.temperature, 0.5);
      assert.equal(sent.body.stream === true, stream);
      if (stream) assert.deepEqual(sent.body.stream_options, { include_usage: true });
      assert.equal(sent.authorization, `Bearer ${KEY}`);
      assert.equal('tools' in sent.body, false, 'no tools offered: no tools field');
    });

    it(`${how}: tool definitions go out, tool calls come back, tool results go out`, async () => {
      standIn.script({
        text: null,
        toolCalls: [
          { id: 'call_1', name: 'current_time', arguments: '{}' },
          { id: 'call_2', name: 'recent_topics', arguments: '{"limit":3}' },
        ],
      });
      const from = standIn.requests.length;
      const model = client(standIn, stream);
      const tools = [{ name: 'current_time', description: 'now', parameters: { type: 'object', properties: {} } }];
      const first = await model.chat({ role: 'background', messages: [{ role: 'user', content: '几点了' }], tools });
      assert.equal(first.text ?? '', '');
      assert.deepEqual(first.toolCalls, [
        { id: 'call_1', name: 'current_time', argumentsJson: '{}' },
        { id: 'call_2', name: 'recent_topics', argumentsJson: '{"limit":3}' },
      ]);
      const sentTools = standIn.requests[from]!.body.tools as { function: { name: string } }[];
      assert.equal(sentTools[0]?.function.name, 'current_time');
      assert.equal(standIn.requests[from]!.body.model, 'slow-model');

      standIn.script({ text: '三点了' });
      const second = await model.chat({
        role: 'chat',
        messages: [
          { role: 'user', content: '几点了' },
          { role: 'assistant', content: null, toolCalls: first.toolCalls },
          { role: 'tool', toolCallId: 'call_1', content: '15:00' },
        ],
        tools,
      });
      assert.equal(second.text, '三点了');
      const messages = standIn.requests[from + 1]!.body.messages as Record<string, unknown>[];
      assert.equal((messages[1]!.tool_calls as unknown[]).length, 2);
      assert.deepEqual(messages[2], { role: 'tool', tool_call_id: 'call_1', content: '15:00' });
    });

    it(`${how}: an HTTP error is http_error with its status`, async () => {
      standIn.script({ status: 500 });
      const error = await failure(client(standIn, stream).chat({ role: 'chat', messages: [] }));
      assert.equal(error.code, 'http_error');
      assert.equal(error.status, 500);
      standIn.script({ status: 401 });
      assert.equal((await failure(client(standIn, stream).chat({ role: 'chat', messages: [] }))).status, 401);
    });

    it(`${how}: a slow answer past the deadline is timeout`, async () => {
      standIn.script({ text: '太晚了', delayMs: 3000 });
      const started = Date.now();
      const error = await failure(client(standIn, stream, 300).chat({ role: 'chat', messages: [] }));
      assert.equal(error.code, 'timeout');
      assert.ok(Date.now() - started < 2500, 'given up at the deadline, not at the answer');
    });

    it(`${how}: a caller's abort is aborted`, async () => {
      standIn.script({ text: '不会到', delayMs: 3000 });
      const controller = new AbortController();
      const from = standIn.requests.length;
      const call = client(standIn, stream).chat({ role: 'chat', messages: [], signal: controller.signal });
      await standIn.waitForRequests(from + 1);
      controller.abort();
      assert.equal((await failure(call)).code, 'aborted');
    });
  }

  it('a closed server is unreachable, and the detail never holds the key', async () => {
    const gone = await startModelStandIn();
    const url = gone.baseUrl;
    await gone.close();
    const model = new OpenAiModel({
      baseUrl: url,
      apiKey: KEY,
      models: { chat: 'm', background: 'm' },
      temperature: 1,
      timeoutMs: 3000,
    });
    const error = await failure(model.chat({ role: 'chat', messages: [] }));
    assert.equal(error.code, 'unreachable');
  });
});
