/**
 * HTTP errors raised by console routes. The error handler turns them into `{ok: false, detail}`
 * with their status; `detail` is meant for the operator, so it names the field or the reason and
 * never carries internals or secrets.
 */
export { HttpError } from '../common/http-error.ts';
import { HttpError } from '../common/http-error.ts';

export const badRequest = (detail: string): HttpError => new HttpError(400, detail);
export const notFound = (detail: string): HttpError => new HttpError(404, detail);
export const conflict = (detail: string): HttpError => new HttpError(409, detail);
export const badGateway = (detail: string): HttpError => new HttpError(502, detail);
