/** String helpers shared by every layer; pure, no I/O. */

const NUL = /\u0000/g;

/** Stored strings never contain NUL (PostgreSQL rejects it in text, and it is never meaningful). */
export function stripNul(value: string): string {
  return value.includes('\u0000') ? value.replace(NUL, '') : value;
}

const CQ_SEGMENT = /\[CQ:[^\]]*\]/gi;
const WHITESPACE = /\s+/g;

/**
 * Plain text of a CQ-coded message (docs/rules.md#plain-text): NUL removed, every [CQ:…] segment removed,
 * whitespace collapsed and trimmed.
 */
export function plainMessageText(raw: string): string {
  // Segments go entirely (早啊[CQ:face,id=178]呀 → 早啊呀), as the hub's cleaning rule does.
  return stripNul(raw).replace(CQ_SEGMENT, '').replace(WHITESPACE, ' ').trim();
}

/** Cut to `max` characters (code points), marking the cut with an ellipsis. */
export function truncate(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
