/** What the config tests import: the public surface plus a key → field table. */
import type { Field } from '../../../src/config/field.ts';
import { SECTIONS } from '../../../src/config/index.ts';

export * from '../../../src/config/index.ts';

export function fieldIndex(): Map<string, Field> {
  return new Map(SECTIONS.flatMap((section) => section.fields.map((field): [string, Field] => [field.env, field])));
}
