// What the model calls each speaker (docs/agent.md#what-leaves-the-machine): the member's group
// card or nickname when it holds no long number, else a stable alias 「群友N」; never a QQ number.
// Also strips numbers out of message text: @mentions become @alias, other long digit runs go.

import type { ExcerptLine } from '../parts.ts';

/** Names kept per group (least recently seen forgotten first). */
const NAMES_PER_GROUP = 500;
/** Digit runs this long or longer may be QQ numbers (5 to 11 digits): never sent. */
const LONG_NUMBER = /\d{5,}/g;
const AT = /\[(?:CQ:at,qq=|at:qq=)(\d+|all)[^\]]*\]/g;

export class SpeakerAliases {
  readonly #groups = new Map<number, Map<number, string>>();

  /** A member spoke: remember what to call them (called per message, O(1)). */
  observe(groupId: number, userId: number, senderName: string): void {
    const names = this.#names(groupId);
    const known = names.get(userId);
    names.delete(userId);
    names.set(userId, known ?? this.#nameFor(names, senderName));
    if (names.size > NAMES_PER_GROUP) names.delete(names.keys().next().value as number);
  }

  /** The alias of a member ('bot' for the bot's own accounts). */
  aliasOf(groupId: number, userId: number, botIds: ReadonlySet<number>): string {
    if (botIds.has(userId)) return 'bot';
    const names = this.#names(groupId);
    let alias = names.get(userId);
    if (alias === undefined) {
      alias = this.#nameFor(names, '');
      names.set(userId, alias);
    }
    return alias;
  }

  /** A CQ-coded message as the model may read it: mentions as @alias, pictures as words, no numbers. */
  textFor(groupId: number, raw: string, botIds: ReadonlySet<number>): string {
    const text = raw
      .replace(AT, (_, qq: string) => (qq === 'all' ? '@全体成员' : `@${this.aliasOf(groupId, Number(qq), botIds)}`))
      .replace(/\[CQ:image[^\]]*\]/g, '[图片]')
      .replace(/\[CQ:face[^\]]*\]/g, '[表情]')
      .replace(/\[CQ:[^\]]*\]/g, '');
    return stripNumbers(text).trim();
  }

  /** Lines of the group's recent talk for a prompt or an excerpt. */
  lines(
    groupId: number,
    messages: readonly { userId: number; rawMessage: string; time: number }[],
    botIds: ReadonlySet<number>,
  ): ExcerptLine[] {
    return messages
      .map((m) => ({
        speaker: this.aliasOf(groupId, m.userId, botIds),
        text: this.textFor(groupId, m.rawMessage, botIds),
        time: m.time,
      }))
      .filter((line) => line.text !== '');
  }

  #nameFor(names: Map<number, string>, senderName: string): string {
    const taken = new Set(names.values());
    const clean = stripNumbers(senderName).replace(/\s+/g, ' ').trim().slice(0, 24);
    if (clean !== '' && clean === senderName.trim() && clean !== 'bot' && !taken.has(clean)) return clean;
    for (let n = names.size + 1; ; n++) if (!taken.has(`群友${n}`)) return `群友${n}`;
  }

  #names(groupId: number): Map<number, string> {
    let names = this.#groups.get(groupId);
    if (!names) {
      names = new Map();
      this.#groups.set(groupId, names);
    }
    return names;
  }
}

/** Long digit runs (possible QQ numbers) are left out of anything sent to the model. */
export function stripNumbers(text: string): string {
  return text.replace(LONG_NUMBER, '[数字]');
}
