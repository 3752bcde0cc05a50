/**
 * What a tool hands back to the model never carries a QQ number (docs/agent-tasks.md#privacy):
 * CQ codes (a mention names the member's number) become short words, and any run of five or more
 * digits, the shape of a QQ number, is masked.
 */

const CQ_CODE = /\[CQ:([a-z_]+)[^\]]*\]/gi;
const CQ_WORDS: Readonly<Record<string, string>> = {
  at: '@某人',
  image: '[图片]',
  face: '[表情]',
  mface: '[表情]',
  record: '[语音]',
  video: '[视频]',
  reply: '',
};

export function forModel(text: string): string {
  return text
    .replace(CQ_CODE, (_, type: string) => CQ_WORDS[type.toLowerCase()] ?? `[${type}]`)
    .replace(/\d{5,}/g, '***')
    .trim();
}
