/**
 * The OneBot v11 endpoint (`/onebot/v11/ws`, outside the console base url): who may connect and
 * how long an action may go unanswered.
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
