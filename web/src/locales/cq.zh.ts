/** How the parts of a stored QQ message read (web/src/components/corpus/CqText.vue); merged into zh.ts. */
export const cqZh = {
  face: '表情 {id}',
  faceNamed: '[{name}]',
  image: '[图片]',
  imageGone: '[图片（地址已失效）]',
  atAll: '@全体成员',
  reply: '[引用回复]',
  record: '[语音]',
  video: '[视频]',
  other: '[{type} 消息]',
};
