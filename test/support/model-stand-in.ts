/**
 * A stand-in language model: a real HTTP server on 127.0.0.1 speaking OpenAI Chat Completions
 * (`POST /v1/chat/completions`), plain JSON or, when the request asks `stream: true`, server-sent
 * events ending in `data: [DONE]`. Each test scripts its answers (text, tool calls, usage, an HTTP
 * error, a delay); every request body is recorded so a test can look at what left the machine.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ScriptedAnswer {
  /** The assistant's text (null: none, e.g. with tool calls). */
  readonly text?: string | null;
  readonly toolCalls?: readonly { id: string; name: string; arguments: string }[];
  readonly usage?: { prompt: number; completion: number };
  /** Answer with this HTTP status and an OpenAI-shaped error body instead. */
  readonly status?: number;
  /** Wait this long before answering (a slow model); the wait ends early when the client leaves. */
  readonly delayMs?: number;
}

export interface RecordedRequest {
  readonly body: Record<string, unknown>;
  readonly authorization: string | undefined;
  readonly raw: string;
}

export interface ModelStandIn {
  /** The base URL to configure: http://127.0.0.1:<port>/v1. */
  readonly baseUrl: string;
  readonly requests: RecordedRequest[];
  /** Queues answers, used in order; once used up, `fallback` answers. */
  script(...answers: ScriptedAnswer[]): void;
  fallback: ScriptedAnswer;
  /** Resolves once `count` requests have arrived (no fixed sleep). */
  waitForRequests(count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startModelStandIn(
  fallback: ScriptedAnswer = { text: '好的', usage: { prompt: 10, completion: 2 } },
): Promise<ModelStandIn> {
  const queue: ScriptedAnswer[] = [];
  const requests: RecordedRequest[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((request, response) => {
    void handle(request, response);
  });
  const standIn: ModelStandIn = {
    baseUrl: '',
    requests,
    fallback,
    script: (...answers) => queue.push(...answers),
    waitForRequests: (count, timeoutMs = 15_000) =>
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`stand-in: ${requests.length} of ${count} requests`)),
          timeoutMs,
        );
        const check = () => {
          if (requests.length >= count) {
            clearTimeout(timer);
            resolve();
          } else waiters.push(check);
        };
        check();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (request.method !== 'POST' || request.url !== '/v1/chat/completions') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `no route ${request.url}`, type: 'not_found' } }));
      return;
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'bad JSON', type: 'invalid_request_error' } }));
      return;
    }
    requests.push({ body, authorization: request.headers.authorization, raw });
    for (const wake of waiters.splice(0)) wake();
    const answer = queue.shift() ?? standIn.fallback;
    if (answer.delayMs) {
      const left = await waitOrLeave(response, answer.delayMs);
      if (left) return;
    }
    if (answer.status !== undefined) {
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: `scripted ${answer.status}`, type: 'server_error' } }));
      return;
    }
    const model = typeof body.model === 'string' ? body.model : 'stand-in';
    if (body.stream === true) streamAnswer(response, answer, model);
    else plainAnswer(response, answer, model);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  (standIn as { baseUrl: string }).baseUrl = `http://127.0.0.1:${port}/v1`;
  return standIn;
}

/** Waits `ms`, or less when the client goes away (true then). */
function waitOrLeave(response: ServerResponse, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      response.off('close', gone);
      resolve(false);
    }, ms);
    const gone = () => {
      clearTimeout(timer);
      resolve(true);
    };
    response.once('close', gone);
  });
}

function usageOf(answer: ScriptedAnswer) {
  const usage = answer.usage ?? { prompt: 10, completion: 2 };
  return {
    prompt_tokens: usage.prompt,
    completion_tokens: usage.completion,
    total_tokens: usage.prompt + usage.completion,
  };
}

function wireCalls(answer: ScriptedAnswer) {
  return (answer.toolCalls ?? []).map((call) => ({
    id: call.id,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }));
}

function plainAnswer(response: ServerResponse, answer: ScriptedAnswer, model: string): void {
  const calls = wireCalls(answer);
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      id: 'chatcmpl-stand-in',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: answer.text ?? null,
            ...(calls.length > 0 ? { tool_calls: calls } : {}),
          },
          finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
        },
      ],
      usage: usageOf(answer),
    }),
  );
}

/** The text in two pieces, each tool call's arguments in two pieces, usage last (include_usage). */
function streamAnswer(response: ServerResponse, answer: ScriptedAnswer, model: string): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const base = { id: 'chatcmpl-stand-in', object: 'chat.completion.chunk', created: 0, model };
  const send = (payload: object) => response.write(`data: ${JSON.stringify({ ...base, ...payload })}\n\n`);
  send({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
  const text = answer.text ?? '';
  const half = Math.ceil([...text].length / 2);
  for (const piece of [[...text].slice(0, half).join(''), [...text].slice(half).join('')]) {
    if (piece !== '') send({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
  }
  (answer.toolCalls ?? []).forEach((call, index) => {
    const cut = Math.ceil(call.arguments.length / 2);
    send({
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index,
                id: call.id,
                type: 'function',
                function: { name: call.name, arguments: call.arguments.slice(0, cut) },
              },
            ],
          },
          finish_reason: null,
        },
      ],
    });
    send({
      choices: [
        {
          index: 0,
          delta: { tool_calls: [{ index, function: { arguments: call.arguments.slice(cut) } }] },
          finish_reason: null,
        },
      ],
    });
  });
  const finish = (answer.toolCalls ?? []).length > 0 ? 'tool_calls' : 'stop';
  send({ choices: [{ index: 0, delta: {}, finish_reason: finish }] });
  send({ choices: [], usage: usageOf(answer) });
  response.end('data: [DONE]\n\n');
}
