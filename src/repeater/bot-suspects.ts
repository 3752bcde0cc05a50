/**
 * Other bots, found by how they behave (docs/guide/groups.md): a member's
 * message starting with a command prefix (`/`, `!`, `#`, `.`) answered within ANSWER_WITHIN_SEC
 * by another member with a multi-line text or a card (json, xml, forward) is one piece of
 * evidence that the answering member is a command bot. After EVIDENCE_NEEDED of them it is
 * proposed in the console (never switched on silently); confirming there sets the user config's
 * `bot`. Memory is bounded: the latest command per group, and at most SUSPECTS_MAX members.
 */
import type { GroupChatMessage } from '../domain/chat.ts';

export const COMMAND_PREFIXES = ['/', '!', '#', '.'] as const;
export const ANSWER_WITHIN_SEC = 3;
export const EVIDENCE_NEEDED = 3;
export const SUSPECTS_MAX = 1_000;
const GROUPS_MAX = 10_000;

export interface Suspect {
  userId: number;
  /** Commands it answered like a bot. */
  evidence: number;
  groupIds: number[];
  /** Unix seconds of the latest evidence. */
  lastSeen: number;
  /** An example of what it answered (the first 200 characters). */
  sample: string;
}

const CARD = /\[CQ:(?:json|xml|forward|node)[,\]]/;

/** A command to some bot (`/jrrp`, `.运势`): another bot's business, never a line of ours. */
export function isCommand(plainText: string): boolean {
  const text = plainText.trimStart();
  return text.length > 1 && COMMAND_PREFIXES.some((prefix) => text.startsWith(prefix));
}

function looksLikeOutput(message: Pick<GroupChatMessage, 'rawMessage' | 'plainText'>): boolean {
  return message.plainText.trim().includes('\n') || CARD.test(message.rawMessage);
}

export class BotSuspects {
  readonly #commands = new Map<number, { userId: number; time: number }>();
  readonly #suspects = new Map<number, Suspect>();

  /** Every group message, in order of arrival. `known`: accounts that are ours or already bots. */
  observe(message: GroupChatMessage, known: (userId: number) => boolean): void {
    if (known(message.userId)) return;
    const command = this.#commands.get(message.groupId);
    if (
      command &&
      command.userId !== message.userId &&
      message.time - command.time <= ANSWER_WITHIN_SEC &&
      looksLikeOutput(message)
    ) {
      this.#commands.delete(message.groupId);
      this.#note(message);
      return;
    }
    if (isCommand(message.plainText)) {
      if (!this.#commands.has(message.groupId) && this.#commands.size >= GROUPS_MAX) this.#commands.clear();
      this.#commands.set(message.groupId, { userId: message.userId, time: message.time });
    }
  }

  /** Members with enough evidence, most evidence first. */
  proposed(): Suspect[] {
    return [...this.#suspects.values()]
      .filter((suspect) => suspect.evidence >= EVIDENCE_NEEDED)
      .sort((a, b) => b.evidence - a.evidence || a.userId - b.userId)
      .map((suspect) => ({ ...suspect, groupIds: [...suspect.groupIds] }));
  }

  #note(message: GroupChatMessage): void {
    let suspect = this.#suspects.get(message.userId);
    if (!suspect) {
      if (this.#suspects.size >= SUSPECTS_MAX) {
        const weakest = [...this.#suspects.values()].sort((a, b) => a.evidence - b.evidence)[0];
        if (weakest) this.#suspects.delete(weakest.userId);
      }
      suspect = {
        userId: message.userId,
        evidence: 0,
        groupIds: [],
        lastSeen: 0,
        sample: message.plainText.slice(0, 200),
      };
      this.#suspects.set(message.userId, suspect);
    }
    suspect.evidence++;
    suspect.lastSeen = message.time;
    if (!suspect.groupIds.includes(message.groupId) && suspect.groupIds.length < 20)
      suspect.groupIds.push(message.groupId);
  }
}
