/**
 * An error a route raises on purpose: the console and the hub answer it with its status, its
 * headers and its `detail` (docs/rules.md#console-envelope). `detail` is for the operator: it names the
 * field or the reason and never carries internals or secrets.
 */
export class HttpError extends Error {
  override readonly name = 'HttpError';

  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
  }
}
