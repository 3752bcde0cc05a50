/**
 * One JSON request to the community hub over Node's fetch: a whole-request timeout
 * (AbortSignal.timeout), a cap on the response size, no redirects followed (a redirect would carry
 * the Bearer token elsewhere). Anything that keeps a status from arriving (refused, reset, DNS,
 * timeout, oversize body) is a TransportError; a status, whatever it is, is a result.
 */
import { errorMessage } from '../common/errors.ts';


export type FetchLike = typeof fetch;

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  /** Sent as `Authorization: Bearer <token>` when non-empty. */
  token?: string;
  /** JSON-encoded as the request body. */
  body?: unknown;
  timeoutMs: number;
  /** Response bodies longer than this are a transport error (default 8 MiB). */
  maxBytes?: number;
}

export interface HttpResult {
  status: number;
  /** The parsed JSON body; undefined when empty or not JSON. */
  json: unknown;
  bytes: number;
}

/** The request never got a status. The message names the cause, never a token. */
export class TransportError extends Error {
  override readonly name = 'TransportError';
}

const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

export async function requestJson(fetchImpl: FetchLike, request: HttpRequest): Promise<HttpResult> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (request.token) headers.Authorization = `Bearer ${request.token}`;
  if (request.body !== undefined) headers['Content-Type'] = 'application/json';
  const signal = AbortSignal.timeout(Math.max(1, Math.round(request.timeoutMs)));
  let response: Response;
  try {
    response = await fetchImpl(request.url, {
      method: request.method,
      headers,
      redirect: 'manual',
      signal,
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
    });
  } catch (error) {
    throw new TransportError(`${request.method} ${request.url}: ${describe(error, request.timeoutMs)}`, {
      cause: error,
    });
  }
  let text: string;
  try {
    text = await readCapped(response, request.maxBytes ?? DEFAULT_MAX_BYTES);
  } catch (error) {
    throw new TransportError(`${request.method} ${request.url}: ${describe(error, request.timeoutMs)}`, {
      cause: error,
    });
  }
  return { status: response.status, json: parseJson(text), bytes: Buffer.byteLength(text) };
}

/** A plain object (not an array, not null). */
export { isObject } from '../common/is-object.ts';

class OversizeError extends Error {}

async function readCapped(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new OversizeError(`response larger than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function describe(error: unknown, timeoutMs: number): string {
  if (error instanceof OversizeError) return error.message;
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return errorMessage(error);
}
