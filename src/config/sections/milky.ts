/**
 * The Milky implementations Chorus dials (Lagrange.Milky, LLBot): their base URLs, each with its
 * token as `?access_token=`. A secret: only the key is ever printed (docs/rules.md#cfg-credentials).
 */
import { field, parsedBad, parsedOk, type Parsed } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'Milky';

/** Longest accepted list: a handful of base URLs with their tokens. */
export const MILKY_CONNECT_MAX_CHARS = 4096;

/** Empty (dial nothing) or comma-separated http(s) URLs without user info; the problem names no value. */
export function checkMilkyConnect(text: string): Parsed<string> {
  if (text.trim() === '') return parsedOk('');
  if (text.length > MILKY_CONNECT_MAX_CHARS) return parsedBad(`expected at most ${MILKY_CONNECT_MAX_CHARS} characters`);
  const entries = text.split(',').map((entry) => entry.trim());
  for (const [index, entry] of entries.entries()) {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      return parsedBad(`entry ${index + 1}: expected an http:// or https:// URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return parsedBad(`entry ${index + 1}: expected an http:// or https:// URL`);
    }
    if (url.username !== '' || url.password !== '') {
      return parsedBad(`entry ${index + 1}: put the token in ?access_token=, not in the URL`);
    }
    if (!/^[\x21-\x7e]*$/.test(url.searchParams.get('access_token') ?? '')) {
      return parsedBad(`entry ${index + 1}: access_token must be printable ASCII without spaces`);
    }
  }
  return parsedOk(entries.join(','));
}

export const milkySection = defineSection({
  id: 'milky',
  title: 'Milky connection',
  prefix: 'CHORUS_MILKY_',
  fields: [
    field.string({
      env: 'CHORUS_MILKY_CONNECT',
      default: '',
      check: checkMilkyConnect,
      secret: true,
      strict: true,
      group,
      description:
        'Milky implementations to dial, comma-separated: http://host:port?access_token=TOKEN (the API and /event are under it).',
    }),
  ],
});

export type MilkyConfig = SectionValues<typeof milkySection>;
