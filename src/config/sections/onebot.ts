/**
 * The OneBot v11 endpoint (`/onebot/v11/ws`, outside the console base url): who may connect and
 * how long an action may go unanswered.
 */
import { field } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'OneBot';

export const onebotSection = defineSection({
  id: 'onebot',
  title: 'OneBot connection',
  prefix: 'CHORUS_ONEBOT_',
  fields: [
    field.string({
      env: 'CHORUS_ONEBOT_ACCESS_TOKEN',
      default: '',
      secret: true,
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
  ],
});

export type OnebotConfig = SectionValues<typeof onebotSection>;
