/**
 * Errors raised by hub routes. The error handler answers `{detail}` with the status (the origin's
 * error body); `detail` names the field or the reason and never carries internals or secrets.
 */
export class HubError extends Error {
  override readonly name = 'HubError';

  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
  }
}

export const badRequest = (detail: string): HubError => new HubError(400, detail);

/** Both details mean "re-enroll" to the bot (rule hub-protocol). */
export const missingBearer = (): HubError =>
  new HubError(401, 'missing bearer token', { 'www-authenticate': 'Bearer' });
export const invalidToken = (): HubError =>
  new HubError(401, 'invalid or expired corpus token', { 'www-authenticate': 'Bearer error="invalid_token"' });

export const forbidden = (detail: string): HubError => new HubError(403, detail);

/** 429 with Retry-After in whole seconds (at least 1). */
export const tooManyRequests = (detail: string, retryAfterSec: number): HubError =>
  new HubError(429, detail, { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSec))) });
