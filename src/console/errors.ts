/**
 * HTTP errors raised by console routes. The error handler turns them into `{ok: false, detail}`
 * with their status; `detail` is meant for the operator, so it names the field or the reason and
 * never carries internals or secrets. A `CodedError` adds `code` and `params`, which the web
 * console words in Chinese or English (`errors.<code>` in web/src/locales); `detail` stays the
 * English text for API clients and logs.
 */
export { HttpError } from '../common/http-error.ts';
import { HttpError } from '../common/http-error.ts';

export const badRequest = (detail: string): HttpError => new HttpError(400, detail);
export const notFound = (detail: string): HttpError => new HttpError(404, detail);
export const conflict = (detail: string): HttpError => new HttpError(409, detail);
export const badGateway = (detail: string): HttpError => new HttpError(502, detail);

export type ErrorParams = Readonly<Record<string, string | number>>;

export class CodedError extends HttpError {
  constructor(
    statusCode: number,
    readonly code: string,
    readonly params: ErrorParams,
    detail: string,
    headers: Readonly<Record<string, string>> = {},
  ) {
    super(statusCode, detail, headers);
  }
}
