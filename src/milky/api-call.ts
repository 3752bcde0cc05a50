/**
 * One Milky API call: `POST {base}/api/<action>` with a JSON body (at least `{}`, as the
 * specification asks) and `Authorization: Bearer <token>`; the answer is
 * `{ status: 'ok' | 'failed', retcode, data, message }`. Failures are the chat port's errors.
 */
import { ActionFailedError, ActionTimeoutError, NotConnectedError } from '../onebot/index.ts';
import type { MilkyTarget } from './connect-target.ts';
import { MILKY_MAX_RESPONSE_BYTES } from './limits.ts';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `data` of a successful answer; throws ActionFailedError, ActionTimeoutError or NotConnectedError. */
export async function callMilky(
  target: MilkyTarget,
  action: string,
  params: Record<string, unknown>,
  timeoutMs: number,
  selfId = 0,
): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(`${target.base}/api/${action}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(target.token !== '' ? { authorization: `Bearer ${target.token}` } : {}),
      },
      body: JSON.stringify(params),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') throw new ActionTimeoutError(action, timeoutMs);
    throw new NotConnectedError(action, selfId, 'no connection');
  }
  // 401/403: the token; 404: an action this implementation lacks; 400/415: our request.
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new ActionFailedError(action, -response.status, `HTTP ${response.status}`);
  }
  const length = Number(response.headers.get('content-length') ?? 0);
  if (length > MILKY_MAX_RESPONSE_BYTES) {
    await response.body?.cancel();
    throw new ActionFailedError(action, -1, 'answer too large');
  }
  let body: unknown;
  try {
    body = JSON.parse(await response.text());
  } catch {
    throw new ActionFailedError(action, -1, 'answer is not JSON');
  }
  if (!isObject(body)) throw new ActionFailedError(action, -1, 'answer is not an object');
  if (body.status !== 'ok') {
    const retcode = typeof body.retcode === 'number' ? body.retcode : -1;
    const detail = typeof body.message === 'string' ? body.message.slice(0, 200) : '';
    throw new ActionFailedError(action, retcode, detail);
  }
  return body.data ?? {};
}

/** A field of an answer's `data` that must be a non-negative integer (else the answer made no sense). */
export function answerInteger(action: string, data: unknown, key: string): number {
  const value = isObject(data) ? data[key] : undefined;
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 0) {
    throw new ActionFailedError(action, -1, `answer lacks data.${key}`);
  }
  return number;
}
