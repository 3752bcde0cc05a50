/**
 * Where Chorus dials a Milky implementation: `CHORUS_MILKY_CONNECT` lists base URLs,
 * `http://host:port[/prefix]?access_token=…`, comma-separated. The token is a secret: only
 * `display` (the URL without its query) is ever logged or shown.
 */

export interface MilkyTarget {
  /** `http(s)://host:port[/prefix]` without a trailing slash: the API is `{base}/api/<action>`. */
  readonly base: string;
  /** Sent as `Authorization: Bearer` and, on the event stream, `?access_token=`; '' for none. */
  readonly token: string;
  /** What logs and the console show. */
  readonly display: string;
}

/** One entry, or a reason it is not one (naming no secret). */
export function parseMilkyTarget(text: string): MilkyTarget | { problem: string } {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return { problem: 'expected an http:// or https:// URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'expected an http:// or https:// URL' };
  if (url.username !== '' || url.password !== '') return { problem: 'put the token in ?access_token=, not in the URL' };
  const token = url.searchParams.get('access_token') ?? '';
  if (token !== '' && !/^[\x21-\x7e]+$/.test(token)) return { problem: 'access_token: printable ASCII without spaces' };
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  return { base, token, display: base };
}

/** The comma-separated list; entries that are not targets are returned as problems. */
export function parseMilkyTargets(text: string): { targets: MilkyTarget[]; problems: string[] } {
  const targets: MilkyTarget[] = [];
  const problems: string[] = [];
  text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .forEach((entry, index) => {
      const parsed = parseMilkyTarget(entry);
      if ('problem' in parsed) problems.push(`entry ${index + 1}: ${parsed.problem}`);
      else targets.push(parsed);
    });
  return { targets, problems };
}
