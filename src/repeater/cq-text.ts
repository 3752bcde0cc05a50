/**
 * Facts the repeater reads off a CQ-coded message (docs/rules.md#rep-text). Pure functions
 * over strings; the OneBot adapter has already split plain text from the raw form.
 */

const IMAGE_ATTRIBUTES = /\.image,[^\]]*\]/g;

/**
 * The raw form the repeater stores and compares: an image keeps its file name but loses its
 * per-delivery attributes (url, subType), so the same picture sent twice compares equal.
 */
export function normaliseRaw(raw: string): string {
  return raw.includes('.image,') ? raw.replace(IMAGE_ATTRIBUTES, '.image]') : raw;
}

/** No CQ segment and some text. */
export function isPlainText(raw: string, plainText: string): boolean {
  return !raw.includes('[CQ:') && plainText.trim() !== '';
}

/** A picture or a QQ face: such messages are only answered with CQ answers (docs/rules.md#rep-reply). */
export function isImage(raw: string): boolean {
  return raw.includes('[CQ:image,') || raw.includes('[CQ:face,');
}

/** The nickname `text` starts with (names lower-cased), or undefined. */
export function leadingNickname(text: string, nicknames: readonly string[]): string | undefined {
  const head = text.trimStart().slice(0, 64).toLowerCase();
  return nicknames.find((name) => name !== '' && head.startsWith(name));
}

/** `text` without a leading nickname (and the blanks after it). */
export function stripNickname(text: string, nicknames: readonly string[]): string {
  const name = leadingNickname(text, nicknames);
  if (name === undefined) return text;
  return text.trimStart().slice(name.length).trimStart();
}

/** `[CQ:at,qq=<id>]` or the short form `[at:qq=<id>]` for this account. */
export function mentionsAccount(raw: string, accountId: number): boolean {
  const id = String(accountId);
  for (const prefix of [`[CQ:at,qq=${id}`, `[at:qq=${id}`]) {
    let from = raw.indexOf(prefix);
    while (from >= 0) {
      const next = raw.charAt(from + prefix.length);
      if (next === ']' || next === ',') return true;
      from = raw.indexOf(prefix, from + 1);
    }
  }
  return false;
}

const REPLY_ID = /\[(?:CQ:reply,id=|reply:id=)(-?\d+)/;

/** The id a message quotes, from its raw form. */
export function quotedMessageId(raw: string): number | null {
  const match = REPLY_ID.exec(raw);
  return match ? Number(match[1]) : null;
}

/** `[CQ:image` of `[CQ:image,file=…]…`: the CQ type a message starts with, or ''. */
export function leadingCqType(raw: string): string {
  return /\[CQ:[A-Za-z_]+/.exec(raw)?.[0] ?? '';
}

/** An empty url attribute (left by some implementations) would make equal messages differ. */
export function stripEmptyUrl(raw: string): string {
  return raw.includes(',url=') ? raw.replace(/,url=(?=[,\]])/g, '') : raw;
}

/** The full-width comma a split reply is cut at (docs/rules.md#rep-reply). */
export const SPLIT_COMMA = '，';

/** The tokens that may become recent topics: not empty, not one of the bot's nicknames. */
export function topicTokens(nicknames: readonly string[], tokens: readonly string[]): string[] {
  return tokens.filter((token) => token !== '' && leadingNickname(token, nicknames) === undefined);
}
