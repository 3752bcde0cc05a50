/** String helpers shared by every layer; pure, no I/O. */

const NUL = /\u0000/g;

/** Stored strings never contain NUL (PostgreSQL rejects it in text, and it is never meaningful). */
export function stripNul(value: string): string {
  return value.includes('\u0000') ? value.replace(NUL, '') : value;
}
