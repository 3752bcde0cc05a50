/**
 * Sends a decided reply's texts in order, each after its human-like delay (docs/rules.md#rep-reply),
 * off the decision path (a repeater task). A text the platform refuses is banned in security mode,
 * unless it was refused for a picture the platform could not find (docs/rules.md#media): the
 * picture is not the text's fault, and a later send may have its bytes.
 */
import { isMediaFailure } from '../domain/chat.ts';
import type { ReplyRecord } from './reply-records.ts';

export interface ReplySendDeps {
  /** Waits the delay before text `index` (the first reply delay, then the split delay). */
  delay(index: number): Promise<void>;
  stopping(): boolean;
  send(text: string): Promise<{ messageId: number }>;
  /** Security mode: bans a text the platform would not take, so it is not tried again. */
  banRefused: ((text: string) => Promise<unknown>) | null;
  /** Told once the first text is out. */
  firstSent(): void;
}

export async function sendReplies(records: readonly ReplyRecord[], deps: ReplySendDeps): Promise<void> {
  for (const [index, record] of records.entries()) {
    await deps.delay(index);
    if (deps.stopping()) return;
    let sent;
    try {
      sent = await deps.send(record.reply);
    } catch (error) {
      if (!isMediaFailure(error)) await deps.banRefused?.(record.reply).catch(() => null);
      throw error;
    }
    record.messageId = sent.messageId;
    if (index === 0) deps.firstSent();
  }
}
