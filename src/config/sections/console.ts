/**
 * Console credentials and login limits (DECISIONS.md "Console"). The read token opens every read
 * route, the write token (defaulting to the read token) also opens the write routes. With no token
 * configured, the service generates one at first start and stores it in the data folder.
 */
import { field } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'Console access';

export const consoleSection = defineSection({
  id: 'console',
  title: 'Console access',
  prefix: 'CHORUS_CONSOLE_',
  fields: [
    field.string({
      env: 'CHORUS_CONSOLE_TOKEN',
      default: '',
      secret: true,
      group,
      description: 'Read token of the console API; empty uses the token generated at first start.',
    }),
    field.string({
      env: 'CHORUS_CONSOLE_WRITE_TOKEN',
      default: '',
      secret: true,
      group,
      description: 'Write token of the console API (config changes); empty means the read token also writes.',
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
