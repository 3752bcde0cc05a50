/**
 * Requests to the AI service: its base URL and API prefix, the Bearer token when one is set, the
 * configured timeout, JSON in and out. Failures are values (status, parsed body, error text), never
 * exceptions, and never carry the token or a request body.
 */
import { AI_RESPONSE_MAX_BYTES } from './limits.ts';
import { errorMessage } from '../../common/errors.ts';

export interface AiRequest {
  method: 'GET' | 'POST';
  url: string;
  token: string;
  timeoutMs: number;
  body?: unknown;
}

export interface AiResponse {
  /** HTTP status; null when no answer came. */
  status: number | null;
  /** Parsed JSON body; undefined when there was none or it was not JSON. */
  json: unknown;
  /** The body as text (at most AI_RESPONSE_MAX_BYTES). */
  text: string;
  /** Why no answer came (timeout, refused connection), or null. */
  error: string | null;
}

/** An answer's status and raw body, for a caller that reads the body its own way (log answers). */
export interface AiRawResponse {
  status: number | null;
  /** At most AI_RESPONSE_MAX_BYTES. */
  body: Buffer;
  error: string | null;
}

export async function callAi(fetchImpl: typeof fetch, request: AiRequest): Promise<AiResponse> {
  const raw = await callAiRaw(fetchImpl, request);
  const text = raw.body.toString('utf8');
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: raw.status, json, text, error: raw.error };
}

export async function callAiRaw(fetchImpl: typeof fetch, request: AiRequest): Promise<AiRawResponse> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (request.token !== '') headers.authorization = `Bearer ${request.token}`;
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetchImpl(request.url, {
      method: request.method,
      headers,
      ...(request.body !== undefined ? { body: JSON.stringify(request.body) } : {}),
      signal: AbortSignal.timeout(request.timeoutMs),
      redirect: 'manual',
    });
  } catch (error) {
    return { status: null, body: Buffer.alloc(0), error: describeFetchError(error, request.timeoutMs) };
  }
  try {
    return { status: response.status, body: await readCapped(response), error: null };
  } catch (error) {
    return { status: response.status, body: Buffer.alloc(0), error: describeFetchError(error, request.timeoutMs) };
  }
}

async function readCapped(response: Response): Promise<Buffer> {
  if (!response.body) return Buffer.alloc(0);
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > AI_RESPONSE_MAX_BYTES) {
      await reader.cancel();
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') return `timed out after ${Math.round(timeoutMs / 100) / 10} s`;
  const cause = (error as { cause?: { code?: string; message?: string } } | null)?.cause;
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ''}`;
  const message = errorMessage(error);
  return cause?.message ? `${message}: ${cause.message}` : message;
}

/** `{base_url}{api_prefix}{path}`. */
export function aiApiUrl(baseUrl: string, apiPrefix: string, path: string): string {
  return `${baseUrl}${apiPrefix}${path}`;
}
