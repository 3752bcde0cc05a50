import { createHash } from 'node:crypto';

/**
 * md5 hex of the NUL-free keywords (docs/rules.md#store-keys): lookups and unique keys go through the hash so
 * that keys longer than an index entry (PostgreSQL's btree limit is ~2.7 kB) still work.
 * Node encodes lone surrogates as U+FFFD, as the origin's "UTF-8 with replacement" does.
 */
export function keywordsHash(keywords: string): string {
  return createHash('md5').update(keywords, 'utf8').digest('hex');
}
