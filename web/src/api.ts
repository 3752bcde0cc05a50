/**
 * The typed console client: every call goes through openapi-fetch over the types generated from
 * openspec/console-v1.json (web/types/console-v1.d.ts), so a route change that breaks the UI fails
 * `npm run typecheck`. `call` unwraps `{ok, data}` and throws an ApiError carrying the API's
 * `detail` (and its `code` and `params`, which `describeError` words through web/src/error-words.ts); a 401
 * outside the auth routes sends the browser to the login page.
 */
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../types/console-v1';
import { API_BASE } from './base';
import { codedErrorWords, type ErrorParams } from './error-words';

export type { paths };

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly code: string | null = null,
    readonly params: ErrorParams = {},
  ) {
    super(detail);
  }
}

/** The ApiError of a failed answer: its detail, and its code when it has one. */
function apiError(status: number, body: unknown, fallback: string): ApiError {
  const { detail, code, params } = (body ?? {}) as { detail?: unknown; code?: unknown; params?: unknown };
  return new ApiError(
    status,
    typeof detail === 'string' && detail !== '' ? detail : fallback,
    typeof code === 'string' ? code : null,
    typeof params === 'object' && params !== null ? (params as ErrorParams) : {},
  );
}

type UnauthorisedHandler = () => void;
let onUnauthorised: UnauthorisedHandler = () => undefined;

/** Set once by the router: where a 401 leads. */
export function handleUnauthorised(handler: UnauthorisedHandler): void {
  onUnauthorised = handler;
}

const authRedirect: Middleware = {
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith(`${API_BASE}/auth/`)) onUnauthorised();
    return undefined;
  },
};

export const client = createClient<paths>({ baseUrl: API_BASE, credentials: 'same-origin' });
client.use(authRedirect);

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The `data` of an enveloped answer, or an ApiError with the API's detail. */
export async function call<T>(request: Promise<Result<{ ok: true; data: T }>>): Promise<T> {
  let result: Result<{ ok: true; data: T }>;
  try {
    result = await request;
  } catch (error) {
    throw new ApiError(0, error instanceof Error ? error.message : String(error));
  }
  if (result.data !== undefined && result.response.ok) return result.data.data;
  throw apiError(result.response.status, result.error, `HTTP ${result.response.status}`);
}

/** For answers that are not enveloped (GET /health). */
export async function callPlain<T>(request: Promise<Result<T>>): Promise<T> {
  const result = await request;
  if (result.data !== undefined && result.response.ok) return result.data;
  throw apiError(result.response.status, result.error, `HTTP ${result.response.status}`);
}

/** An error in the console's language: a coded API error as the locale words it, else the API's detail. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    const text = (error.code !== null ? codedErrorWords(error.code, error.params) : null) ?? error.detail;
    return error.status ? `${text} (HTTP ${error.status})` : text;
  }
  return error instanceof Error ? error.message : String(error);
}

type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : never;
/** The `data` type of a GET route's 200 answer. */
export type GetData<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } }
  ? JsonOf<R> extends { data: infer D }
    ? D
    : JsonOf<R>
  : never;
