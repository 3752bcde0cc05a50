/**
 * Errors raised by hub routes. The error handler answers `{detail}` with the status (the origin's
 * error body); `detail` names the field or the reason and never carries internals or secrets.
 */
import { HttpError } from '../common/http-error.ts';

export { HttpError };

export const badRequest = (detail: string): HttpError => new HttpError(400, detail);

/** Both details mean "re-enroll" to the bot (docs/rules.md#hub-protocol). */
export const missingBearer = (): HttpError =>
  new HttpError(401, 'missing bearer token', { 'www-authenticate': 'Bearer' });
export const invalidToken = (): HttpError =>
  new HttpError(401, 'invalid or expired corpus token', { 'www-authenticate': 'Bearer error="invalid_token"' });

export const forbidden = (detail: string): HttpError => new HttpError(403, detail);

/** 429 with Retry-After in whole seconds (at least 1). */
export const tooManyRequests = (detail: string, retryAfterSec: number): HttpError =>
  new HttpError(429, detail, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSec))) });
