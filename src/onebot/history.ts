/**
 * `get_group_msg_history` (served by NapCat, LLBot and SnowLuma; go-cqhttp's extension): a page
 * of a group's past messages, ending at `message_seq` (0 or absent: the newest), each an ordinary
 * message event. NapCat orders them oldest first unless `reverseOrder`; we ask for that order and
 * sort anyway, since not every implementation honours the flag. A message that does not parse is
 * counted as dropped, never fatal (docs/rules.md#style-bad-input).
 */
import type { HistoryMessage, HistoryPage } from '../ports/chat.ts';
import { ActionFailedError } from './errors.ts';
import { parseEvent } from './events.ts';

/** OneBot v11's "action not supported" retcode. */
const UNSUPPORTED_RETCODE = 1404;
/** How implementations word a missing action when they use another retcode. */
const UNSUPPORTED_WORDS = /not (?:be )?support|unsupported|unknown action|不支持|未实现|不存在/i;

export const HISTORY_ACTION = 'get_group_msg_history';

export function historyParams(groupId: number, beforeSeq: number, count: number): Record<string, unknown> {
  return { group_id: groupId, message_seq: beforeSeq, count, reverseOrder: false };
}

/** The answer's messages as domain values, oldest first. */
export function historyPage(data: unknown, selfId: number, groupId: number, nowMs: number): HistoryPage {
  const list = typeof data === 'object' && data !== null ? (data as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(list)) return { kind: 'page', messages: [], dropped: 0 };
  const messages: HistoryMessage[] = [];
  let dropped = 0;
  for (const item of list) {
    const frame = parseEvent(item, selfId, nowMs);
    if (frame.kind !== 'group_message' || frame.message.groupId !== groupId) {
      dropped++;
      continue;
    }
    const record = item as { message_seq?: unknown };
    const seq = typeof record.message_seq === 'number' && record.message_seq > 0 ? record.message_seq : null;
    messages.push({ message: frame.message, seq: seq ?? frame.message.messageId });
  }
  messages.sort((a, b) => a.message.time - b.message.time || a.seq - b.seq);
  return { kind: 'page', messages, dropped };
}

/** Whether a failed history call means the implementation has no such action. */
export function unsupportedHistory(error: unknown): string | null {
  if (!(error instanceof ActionFailedError)) return null;
  if (error.retcode === UNSUPPORTED_RETCODE || UNSUPPORTED_WORDS.test(error.detail)) {
    return `retcode ${error.retcode}${error.detail ? `: ${error.detail}` : ''}`;
  }
  return null;
}
