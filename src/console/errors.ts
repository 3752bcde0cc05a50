/**
 * HTTP errors raised by console routes. Every one is coded: the error handler answers
 * `{ok: false, code, params, detail}` with its status. `code` is a stable snake_case name the web
 * console words in Chinese or English (`errors.<code>` in web/src/locales, with `params` filled
 * in); `detail` stays the English text for API clients and logs, naming the field or the reason and
 * never carrying internals or secrets. A param called `field` is a request path such as
 * `body.values.host`, which the web names in words. Usage (docs/console-server.md#errors):
 *
 *   throw badRequest('nothing_to_save', {}, 'body: nothing to save (empty object)');
 *   throw invalidField('query.until', 'order', 'query.until: must not be before since');
 *   throw notFound('no_backup', { name }, `no backup called ${name}`);
 */
export { HttpError } from '../common/http-error.ts';
import { HttpError } from '../common/http-error.ts';
import type { SchemaReason } from '../common/schema-errors.ts';

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

/**
 * Why a field was refused (`errors.reason.<reason>` in the web locales): the schema's closed set,
 * plus the few checks routes make beyond the schema.
 */
export type FieldReason = SchemaReason | 'blank' | 'control_chars' | 'order' | 'not_a_day' | 'unknown_kind';

type Coded = (code: string, params: ErrorParams, detail: string) => CodedError;
const coded =
  (status: number): Coded =>
  (code, params, detail) =>
    new CodedError(status, code, params, detail);

export const badRequest = coded(400);
export const notFound = coded(404);
export const conflict = coded(409);
export const badGateway = coded(502);
export const unavailable = coded(503);

/** A 400 naming one field of the request and why (the same shape as a schema violation). */
export function invalidField(field: string, reason: FieldReason, detail: string, extra: ErrorParams = {}): CodedError {
  return new CodedError(400, 'invalid_field', { ...extra, field, reason }, detail);
}
