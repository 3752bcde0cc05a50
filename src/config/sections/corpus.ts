/**
 * Which corpus sources exist and how they combine (docs/rules.md#corpus-sources). The console shows most of these on the `corpus_federation` page.
 */
import { field } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

export const CORPUS_SOURCES = ['local', 'fed', 'community'] as const;
export type CorpusSourceName = (typeof CORPUS_SOURCES)[number];

/**
 * As the origin does (docs/rules.md#corpus-sources): lower-cased, only known names kept, first occurrence wins, and an
 * empty result means all three in the default order rather than "no sources".
 */
export function normaliseMergeOrder(items: readonly string[]): readonly CorpusSourceName[] {
  const order: CorpusSourceName[] = [];
  for (const item of items) {
    const name = item.trim().toLowerCase();
    const known = CORPUS_SOURCES.find((source) => source === name);
    if (known !== undefined && !order.includes(known)) order.push(known);
  }
  return order.length > 0 ? order : [...CORPUS_SOURCES];
}

export type RemoteFindMode = 'off' | 'sync' | 'prefetch';

/** `auto` has no meaning of its own yet: like `false` it resolves to off (docs/rules.md#corpus-sources). */
export function resolveRemoteFindMode(value: 'auto' | 'false' | 'prefetch' | 'sync'): RemoteFindMode {
  switch (value) {
    case 'sync':
      return 'sync';
    case 'prefetch':
      return 'prefetch';
    case 'auto':
    case 'false':
      return 'off';
  }
}

export const corpusSection = defineSection({
  id: 'corpus',
  title: 'Corpus sources',
  prefix: 'CHORUS_CORPUS_',
  fields: [
    field.list({
      env: 'CHORUS_CORPUS_MERGE_ORDER',
      default: CORPUS_SOURCES,
      // Written as a comma list in the docs; `|` and newlines still work like other lists.
      separator: /[,|\n]/,
      normalise: normaliseMergeOrder,
      group: 'Sources',
      description: 'Lookup order of the sources local, fed and community.',
    }),
    field.enum({
      env: 'CHORUS_CORPUS_MERGE_STRATEGY',
      choices: ['local_first', 'merge_counts'],
      default: 'local_first',
      group: 'Sources',
      description: 'How sources combine: local_first stops at a local hit with answers, merge_counts adds counts.',
    }),
    field.tristate({
      env: 'CHORUS_CORPUS_FED_ENABLED',
      default: 'auto',
      group: 'Sources',
      description: 'Federated second source; auto follows whether one is configured.',
    }),
    field.tristate({
      env: 'CHORUS_CORPUS_COMMUNITY_ENABLED',
      default: false,
      group: 'Community',
      description: 'Master switch of the community shared reply library.',
    }),
    field.tristate({
      env: 'CHORUS_CORPUS_AUTO_ENROLL',
      default: false,
      group: 'Community',
      description: 'Enroll with the community hub automatically; auto follows use of the community library.',
    }),
    field.tristate({
      env: 'CHORUS_CORPUS_COMMUNITY_CONTRIBUTE',
      default: 'auto',
      group: 'Community',
      description: 'Contribute newly learned phrases to the community; only an explicit false turns it off.',
    }),
    field.enum({
      env: 'CHORUS_CORPUS_ON_REMOTE_FAILURE',
      choices: ['local_only'],
      default: 'local_only',
      group: 'Sources',
      description: 'What a failing remote source falls back to.',
    }),
    field.string({
      env: 'CHORUS_CORPUS_COMMUNITY_API_BASE',
      default: '',
      group: 'Community',
      description:
        'Manual community API base URL, or several separated by commas (tried in order when one fails); empty uses the enrolled endpoint.',
    }),
    field.string({
      env: 'CHORUS_CORPUS_COMMUNITY_TOKEN',
      default: '',
      secret: true,
      group: 'Community',
      description: 'Manual community Bearer token; empty uses the enrolled token.',
    }),
    field.enum({
      env: 'CHORUS_CORPUS_REMOTE_FIND_ENABLED',
      choices: ['auto', 'false', 'prefetch', 'sync'],
      default: 'auto',
      // The console and older configs write a switch here; "on" means the safe background mode.
      aliases: {
        true: 'prefetch',
        '1': 'prefetch',
        yes: 'prefetch',
        on: 'prefetch',
        '0': 'false',
        no: 'false',
        off: 'false',
      },
      group: 'Community',
      description:
        'Community lookup for replies: auto/false off, prefetch in the background after a miss, sync on the hot path.',
    }),
  ],
});

export type CorpusConfig = SectionValues<typeof corpusSection>;
