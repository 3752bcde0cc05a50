import { quotedMessageId, stripNickname } from './cq-text.ts';

/** The word that bans the quoted bot reply, and the phrase that bans the bot's latest one (docs/rules.md#bans). */
export const BAN_WORD = '不可以';
export const BAN_LATEST_PHRASE = '不可以发这个';

export interface BanCommand {
  /** `quoted`: ban the quoted reply; `latest`: ban the bot's newest reply. */
  kind: 'quoted' | 'latest';
  /** The message it quotes, if any (recalled along with the ban). */
  quotedId: number | null;
}

/**
 * Whether a message is a ban command (docs/rules.md#bans a, b). Whom it targets is the caller's
 * question: a command counts only when it is addressed to a bot.
 */
export function parseBanCommand(
  plainText: string,
  rawMessage: string,
  replyToMessageId: number | null,
  nicknames: readonly string[],
): BanCommand | null {
  const quotedId = replyToMessageId ?? quotedMessageId(rawMessage);
  if (stripNickname(plainText, nicknames).trim() === BAN_LATEST_PHRASE) return { kind: 'latest', quotedId };
  if (quotedId !== null && plainText.includes(BAN_WORD)) return { kind: 'quoted', quotedId };
  return null;
}
