/**
 * Console credentials and login limits (docs/rules.md#console-auth). The read token opens every read
 * route, the write token (defaulting to the read token) also opens the write routes. With no token
 * configured, the service generates one at first start and stores it in the data folder.
 */
import { field, parsedBad, parsedOk, type Parsed } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'Console access';

/** Bounds of a console token (docs/guide/troubleshooting.md#limits); the login route refuses longer input unhashed. */
export const CONSOLE_TOKEN_CHARS = { min: 8, max: 512 } as const;

const TOKEN_TEXT = /^[\x21-\x7e]+$/;

/**
 * A token is empty (use the generated one) or 8 to 512 printable ASCII characters without spaces:
 * what a header, a query string and the login form all carry unchanged. A longer token could
 * never be presented (the console refuses longer input before hashing it), so saving one would
 * lock every writer out.
 */
export function checkConsoleToken(text: string): Parsed<string> {
  if (text === '') return parsedOk('');
  if (text.length < CONSOLE_TOKEN_CHARS.min || text.length > CONSOLE_TOKEN_CHARS.max) {
    return parsedBad(`expected ${CONSOLE_TOKEN_CHARS.min} to ${CONSOLE_TOKEN_CHARS.max} characters, or empty`);
  }
  if (!TOKEN_TEXT.test(text)) return parsedBad('expected printable ASCII characters without spaces');
  return parsedOk(text);
}

export const consoleSection = defineSection({
  id: 'console',
  title: 'Console access',
  prefix: 'CHORUS_CONSOLE_',
  fields: [
    field.string({
      env: 'CHORUS_CONSOLE_TOKEN',
      default: '',
      check: checkConsoleToken,
      secret: true,
      strict: true,
      group,
      description:
        'Read token of the console API (8-512 printable ASCII characters); empty uses the token generated at first start.',
    }),
    field.string({
      env: 'CHORUS_CONSOLE_WRITE_TOKEN',
      default: '',
      check: checkConsoleToken,
      secret: true,
      strict: true,
      group,
      description:
        'Write token of the console API (config changes; must differ from the read token); empty means the read token also writes.',
    }),
    field.int({
      env: 'CHORUS_CONSOLE_LOGIN_MAX_FAILURES',
      default: 10,
      min: 1,
      max: 1000,
      group,
      description: 'Failed logins allowed per client address within the login window before 429.',
    }),
    field.int({
      env: 'CHORUS_CONSOLE_LOGIN_WINDOW_SEC',
      default: 300,
      min: 10,
      max: 86400,
      group,
      description: 'Length of the login rate-limit window in seconds.',
    }),
  ],
});

export type ConsoleConfig = SectionValues<typeof consoleSection>;
