/**
 * A CQ-coded message (OneBot v11 string form) cut into what the console shows: text, faces,
 * images (their address when the message carries a usable one), mentions and other codes by
 * type, so no page ever shows raw `[CQ:...]` text.
 */
export type CqPart =
  | { kind: 'text'; text: string }
  | { kind: 'face'; id: string }
  | { kind: 'image'; url: string | null }
  | { kind: 'at'; qq: string }
  | { kind: 'other'; type: string };

const CODE = /\[CQ:([a-zA-Z_]+)((?:,[^\]]*)?)\]/g;

const unescape = (text: string) =>
  text.replace(/&#91;/g, '[').replace(/&#93;/g, ']').replace(/&#44;/g, ',').replace(/&amp;/g, '&');

export function parseCq(message: string): CqPart[] {
  const parts: CqPart[] = [];
  let last = 0;
  for (const match of message.matchAll(CODE)) {
    if (match.index > last) parts.push({ kind: 'text', text: unescape(message.slice(last, match.index)) });
    last = match.index + match[0].length;
    const params = new Map<string, string>();
    for (const pair of (match[2] ?? '').split(',').slice(1)) {
      const at = pair.indexOf('=');
      if (at > 0) params.set(pair.slice(0, at), unescape(pair.slice(at + 1)));
    }
    const type = match[1] ?? '';
    if (type === 'face') parts.push({ kind: 'face', id: params.get('id') ?? '?' });
    else if (type === 'image') {
      const url = params.get('url') ?? params.get('file') ?? '';
      parts.push({ kind: 'image', url: /^https?:\/\//.test(url) ? url : null });
    } else if (type === 'at') parts.push({ kind: 'at', qq: params.get('qq') ?? '?' });
    else parts.push({ kind: 'other', type });
  }
  if (last < message.length) parts.push({ kind: 'text', text: unescape(message.slice(last)) });
  return parts;
}

/** The message as one line of text, codes as words (`t` words them: cq.face, cq.image, cq.at, cq.other). */
export function cqPlain(message: string, t: (key: string, values?: Record<string, unknown>) => string): string {
  return parseCq(message)
    .map((part) => {
      switch (part.kind) {
        case 'text':
          return part.text;
        case 'face':
          return `[${t('cq.face', { id: part.id })}]`;
        case 'image':
          return `[${t('cq.image')}]`;
        case 'at':
          return `@${part.qq}`;
        default:
          return `[${t('cq.other', { type: part.type })}]`;
      }
    })
    .join('');
}
