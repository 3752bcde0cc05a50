/**
 * A small community hub on 127.0.0.1 for the community tests: a real node:http server speaking
 * the hub protocol (docs/rules.md#hub-protocol): enroll (rotating tokens), context, contribute, usage and
 * heartbeat. Every request is recorded; `override` answers a request differently (a status, a
 * body, a hang, a dropped connection). Plus two hostile peers: a black hole (accepts and never
 * answers) and a closed port (connection refused).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface HubRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  authorization: string | undefined;
  body: unknown;
}

export interface HubAnswer {
  status: number;
  body?: unknown;
  /** A raw body (sent as is, content type JSON). */
  raw?: string;
}

export type Override = (request: HubRequest) => HubAnswer | 'hang' | 'drop' | undefined;

export interface StoredAnswer {
  keywords: string;
  group_id: number;
  count: number;
  time: number;
  messages: string[];
}

export interface StoredContext {
  keywords: string;
  time: number;
  trigger_count: number;
  answers: StoredAnswer[];
}

export class FakeHub {
  readonly requests: HubRequest[] = [];
  readonly contexts = new Map<string, StoredContext>();
  /** token → deployment id */
  readonly tokens = new Map<string, string>();
  readonly heartbeats: Record<string, unknown>[] = [];
  override: Override | undefined;
  /** Policy handed out at enroll. */
  policy = { read: true, contribute: true };
  expiresAt: number | null = null;
  usage = { read_lookups: 0, read_hits: 0, contribute_ok: 0 };
  #issued = 0;
  readonly #sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {
    server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  static async start(): Promise<FakeHub> {
    const holder: { hub?: FakeHub } = {};
    const server = createServer((req, res) => {
      void holder.hub?.handle(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    holder.hub = new FakeHub(server, `http://127.0.0.1:${port}`);
    return holder.hub;
  }

  get heartbeatUrl(): string {
    return `${this.url}/v1/heartbeat`;
  }

  get apiBase(): string {
    return `${this.url}/v1/corpus`;
  }

  /** Requests to one path (e.g. '/v1/corpus/context'). */
  to(path: string): HubRequest[] {
    return this.requests.filter((request) => request.path === path);
  }

  /** A token as if enrolled (for clients built without enrolling). */
  issue(deploymentId = '00000000-0000-4000-8000-000000000000'): string {
    for (const [token, owner] of this.tokens) if (owner === deploymentId) this.tokens.delete(token);
    const token = `pc_${++this.#issued}`;
    this.tokens.set(token, deploymentId);
    return token;
  }

  seed(context: StoredContext): void {
    this.contexts.set(context.keywords, structuredClone(context));
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const request: HubRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      authorization: req.headers.authorization,
      body,
    };
    this.requests.push(request);
    const custom = this.override?.(request);
    if (custom === 'hang') return;
    if (custom === 'drop') {
      req.socket.destroy();
      return;
    }
    const answer = custom ?? this.#route(request);
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(answer.raw ?? (answer.body === undefined ? '' : JSON.stringify(answer.body)));
  }

  #bearer(request: HubRequest): string | null {
    const match = /^Bearer (.+)$/.exec(request.authorization ?? '');
    const token = match?.[1];
    return token && this.tokens.has(token) ? token : null;
  }

  #route(request: HubRequest): HubAnswer {
    const { path, method } = request;
    if (method === 'POST' && path === '/v1/corpus/enroll') {
      const id = (request.body as { deployment_id?: string } | undefined)?.deployment_id ?? '';
      const token = this.issue(id);
      return {
        status: 200,
        body: {
          corpus_token: token,
          api_base: `${this.url}/v1/corpus`,
          policy: { ...this.policy, merge_strategy: 'local_first', read_rpm: 120, contribute_per_day: 0 },
          expires_at: this.expiresAt,
        },
      };
    }
    if (method === 'POST' && path === '/v1/heartbeat') {
      this.heartbeats.push(request.body as Record<string, unknown>);
      return { status: 200, body: { ok: true, server_ts: Math.floor(Date.now() / 1000) } };
    }
    if (path.startsWith('/v1/corpus/')) {
      if (!this.#bearer(request)) return { status: 401, body: { detail: 'invalid or expired corpus token' } };
    }
    if (method === 'GET' && path === '/v1/corpus/context') {
      const keywords = (request.query.get('keywords') ?? '').trim();
      if (!keywords) return { status: 400, body: { detail: 'keywords required' } };
      this.usage.read_lookups++;
      const found = this.contexts.get(keywords);
      if (!found) return { status: 404, body: { detail: 'context not found' } };
      this.usage.read_hits++;
      return { status: 200, body: { ...found, clear_time: 0, ban: [] } };
    }
    if (method === 'POST' && path === '/v1/corpus/contribute') {
      if (!this.policy.contribute) return { status: 403, body: { detail: 'contribute not allowed' } };
      this.#contribute(request.body as Record<string, unknown>);
      this.usage.contribute_ok++;
      return { status: 200, body: { ok: true, accepted: true } };
    }
    if (method === 'GET' && path === '/v1/corpus/usage') {
      return { status: 200, body: { deployment_id: 'x', ...this.usage, updated_at: 1_700_000_000 } };
    }
    return { status: 404, body: { detail: 'not found' } };
  }

  #contribute(body: Record<string, unknown>): void {
    if (body.op === 'upsert_answer') {
      const keywords = String(body.keywords);
      const context = this.contexts.get(keywords) ?? { keywords, time: 0, trigger_count: 0, answers: [] };
      context.trigger_count++;
      const groupId = Number(body.group_id ?? 0);
      const answerKeywords = String(body.answer_keywords);
      let answer = context.answers.find((a) => a.keywords === answerKeywords && a.group_id === groupId);
      if (!answer) {
        answer = { keywords: answerKeywords, group_id: groupId, count: 0, time: 0, messages: [] };
        context.answers.push(answer);
      }
      answer.count++;
      answer.time = Number(body.answer_time ?? 0);
      const message = typeof body.message === 'string' ? body.message : '';
      if (message && !answer.messages.includes(message)) answer.messages.push(message);
      this.contexts.set(keywords, context);
      return;
    }
    const context = body.context as { keywords: string; time: number; answers: StoredAnswer[] };
    this.contexts.set(context.keywords, {
      keywords: context.keywords,
      time: context.time,
      trigger_count: Math.max(1, context.answers.length),
      answers: context.answers.map((answer) => ({ ...answer, group_id: 0 })),
    });
  }
}

/** A TCP server that accepts connections and never answers. */
export async function blackHole(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback URL on which nothing listens (connection refused). */
export async function closedPort(): Promise<string> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
