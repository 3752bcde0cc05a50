import type { cqZh } from './cq.zh';

/** How the parts of a stored QQ message read (web/src/components/corpus/CqText.vue); merged into en.ts. */
export const cqEn: typeof cqZh = {
  face: 'Face {id}',
  faceNamed: '[{name}]',
  image: '[Image]',
  imageGone: '[Image (address expired)]',
  atAll: '@everyone',
  reply: '[Quoted reply]',
  record: '[Voice]',
  video: '[Video]',
  other: '[{type} message]',
};
