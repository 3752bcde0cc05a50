/**
 * A stored QQ message as one line of plain text, for places that take a string (a sentence that
 * quotes an answer, a dialog title): the same reading as CqText.vue, parsed by the bot's own
 * parser, faces by name, every other code as its label from the locales (`cq.*`).
 */
import { parseCq } from '../../../../src/onebot/cq-code';
import { FACE_NAMES } from './qq-faces';
import { memberNumber } from '../member-number';

type Translate = (key: string, values?: Record<string, unknown>) => string;

export function cqPlain(message: string, t: Translate): string {
  return parseCq(message)
    .map((segment) => {
      const data = segment.data;
      switch (segment.type) {
        case 'text':
          return data.text ?? '';
        case 'face': {
          const name = FACE_NAMES[Number(data.id)];
          return name ? t('cq.faceNamed', { name }) : t('cq.face', { id: data.id ?? '?' });
        }
        case 'image':
        case 'mface':
          return t('cq.image');
        case 'at':
          return data.qq === 'all' ? t('cq.atAll') : `@${data.name || memberNumber(data.qq, t)}`;
        case 'reply':
          return t('cq.reply');
        case 'record':
          return t('cq.record');
        case 'video':
          return t('cq.video');
        default:
          return t('cq.other', { type: segment.type });
      }
    })
    .join('');
}
