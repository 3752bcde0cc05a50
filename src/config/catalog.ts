/**
 * A lookup table from env key to its field, built from the section registry when a load needs
 * it (cheap: a few dozen entries), so the module holds no state of its own.
 */
import type { Field } from './field.ts';
import { fieldName, type Section } from './section.ts';
import { SECTIONS } from './sections/index.ts';

export interface CatalogEntry {
  readonly field: Field;
  readonly section: Section;
  /** Property name inside the section's value object. */
  readonly name: string;
}

export interface Catalog {
  readonly sections: readonly Section[];
  /** In declaration order; keys are upper-case env keys. */
  readonly entries: ReadonlyMap<string, CatalogEntry>;
  /**
   * True for a key that looks like one of ours (starts with a section prefix) without being
   * declared: likely a typo or a key of a later version, worth a warning in a shared .env.
   */
  looksOurs(key: string): boolean;
}

export function buildCatalog(sections: readonly Section[] = SECTIONS): Catalog {
  const entries = new Map<string, CatalogEntry>();
  for (const section of sections) {
    for (const field of section.fields) {
      if (entries.has(field.env)) throw new Error(`config key ${field.env} is declared twice`);
      entries.set(field.env, Object.freeze({ field, section, name: fieldName(field.env, section.prefix) }));
    }
  }
  const prefixes = [...new Set(sections.map((section) => section.prefix))];
  return Object.freeze({
    sections,
    entries,
    looksOurs: (key: string) => prefixes.some((prefix) => key.startsWith(prefix)),
  });
}
