/**
 * The OneBot v11 endpoint (`/onebot/v11/ws`, outside the console base url): who may connect, how
 * long an action may go unanswered, when a silent connection counts as dead (liveness.ts), and
 * which implementations' WebSocket servers Chorus dials.
 */
import { field, parsedBad, parsedOk, type Parsed } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'OneBot';

/** The longest access token accepted: a header line an implementation sends whole. */
export const ONEBOT_TOKEN_MAX_CHARS = 512;

/**
 * Empty (accept any connection) or printable ASCII without spaces: what both an `Authorization`
 * header and an `?access_token=` query carry unchanged, so an implementation configured with the
 * same text can present it (docs/rules.md#cfg-credentials).
 */
export function checkOnebotToken(text: string): Parsed<string> {
  if (text === '') return parsedOk('');
  if (text.length > ONEBOT_TOKEN_MAX_CHARS) return parsedBad(`expected at most ${ONEBOT_TOKEN_MAX_CHARS} characters`);
  if (!/^[\x21-\x7e]+$/.test(text)) return parsedBad('expected printable ASCII characters without spaces');
  return parsedOk(text);
}

/** The longest forward-WebSocket address accepted (its token included). */
export const ONEBOT_CONNECT_URL_MAX_CHARS = 1024;

/**
 * One forward-WebSocket target: a `ws://` or `wss://` address with a host, its token (if any) in
 * `?access_token=`. The problem never repeats the text, which may hold a token.
 */
export function checkForwardUrl(text: string): Parsed<string> {
  if (text.length > ONEBOT_CONNECT_URL_MAX_CHARS) {
    return parsedBad(`expected at most ${ONEBOT_CONNECT_URL_MAX_CHARS} characters`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return parsedBad('expected a ws:// or wss:// address such as ws://127.0.0.1:3001');
  }
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') return parsedBad('expected a ws:// or wss:// address');
  if (url.hostname === '') return parsedBad('expected a host name');
  if (url.username !== '' || url.password !== '') {
    return parsedBad('put the token in ?access_token= instead of user:password@');
  }
  const token = url.searchParams.get('access_token');
  if (token !== null && !checkOnebotToken(token).ok) {
    return parsedBad('access_token: expected printable ASCII characters without spaces');
  }
  return parsedOk(url.href);
}

export const onebotSection = defineSection({
  id: 'onebot',
  title: 'OneBot connection',
  prefix: 'CHORUS_ONEBOT_',
  fields: [
    field.string({
      env: 'CHORUS_ONEBOT_ACCESS_TOKEN',
      default: '',
      check: checkOnebotToken,
      secret: true,
      strict: true,
      group,
      description:
        'Token OneBot implementations must present (Authorization: Bearer, or ?access_token=); empty accepts any.',
    }),
    field.int({
      env: 'CHORUS_ONEBOT_ACTION_TIMEOUT_SEC',
      default: 10,
      min: 1,
      max: 120,
      group,
      description: 'Seconds to wait for the answer to an action (sending, recalling, fetching a message).',
    }),
    field.int({
      env: 'CHORUS_ONEBOT_PING_INTERVAL_SEC',
      default: 30,
      min: 0,
      max: 3600,
      group,
      description: 'Seconds between WebSocket pings to each connection (liveness); 0 sends none.',
    }),
    field.int({
      env: 'CHORUS_ONEBOT_PONG_TIMEOUT_SEC',
      default: 10,
      min: 1,
      max: 600,
      group,
      description: 'A ping unanswered this many seconds marks the account offline and closes its connection.',
    }),
    field.int({
      env: 'CHORUS_ONEBOT_HEARTBEAT_MISSED_MAX',
      default: 3,
      min: 2,
      max: 20,
      group,
      description:
        'Heartbeat intervals (as the implementation announces them) that may pass without one before the account is offline and closed.',
    }),
    field.list({
      env: 'CHORUS_ONEBOT_CONNECT',
      default: [],
      separator: /[,\n]/,
      checkItem: checkForwardUrl,
      normalise: (items) => [...new Set(items)],
      secret: true,
      group,
      description:
        'Forward WebSocket: OneBot servers Chorus dials (SnowLuma, NapCat WS server), comma-separated, e.g. ws://127.0.0.1:3001?access_token=...',
    }),
    field.int({
      env: 'CHORUS_ONEBOT_MEDIA_CACHE_MB',
      default: 256,
      min: 0,
      max: 65_536,
      group,
      description:
        'Megabytes of learned pictures kept in data/media, so they can be sent again once the implementation forgot them (least recently used evicted first); 0 keeps none.',
    }),
    field.int({
      env: 'CHORUS_ONEBOT_MEDIA_PICTURE_MAX_KB',
      default: 4096,
      min: 16,
      max: 32_768,
      group,
      description: 'Largest picture, in kilobytes, fetched into the media cache; larger ones are not kept.',
    }),
  ],
});

export type OnebotConfig = SectionValues<typeof onebotSection>;
