/**
 * The creator's reminder commands in chat (docs/agent-tasks.md#chat), answered in Chinese:
 * - 「我的提醒」: the member's open reminders in this group, soonest first;
 * - 「取消提醒 <编号>」 (also 「取消提醒#3」): cancels one, only the member's own, in this group.
 * Each account answers for the reminders it made, so a group with several accounts of the fleet
 * hears one answer; an answer that names nothing of this account's (「没有…」) is given only when
 * the message addresses this account (a mention or a leading nickname). A cancellation lands in
 * the activity log (reminders.ts).
 */
import type { GroupChatMessage } from '../../domain/chat.ts';
import type { AgentTask } from '../../store/agent-tasks-store.ts';
import { TASKS } from './limits.ts';
import type { Reminders } from './reminders.ts';

export type TaskCommand = { kind: 'list' } | { kind: 'cancel'; id: number };

const LIST = /^我的提醒$/u;
const CANCEL = /^取消提醒\s*[#＃]?\s*(\d{1,12})$/u;

/** The command in a message's text (nickname or mention already stripped), or null. */
export function parseTaskCommand(text: string): TaskCommand | null {
  const word = text.trim().replace(/[。！!.？?]+$/u, '');
  if (LIST.test(word)) return { kind: 'list' };
  const cancel = CANCEL.exec(word);
  return cancel ? { kind: 'cancel', id: Number(cancel[1]) } : null;
}

export interface TaskCommandDeps {
  reminders: Pick<Reminders, 'open' | 'cancelByCreator'>;
  /** The message's text without a leading nickname, and whether it addresses this account. */
  address(message: GroupChatMessage): { text: string; addressed: boolean };
  /** Says the answer in the group (not awaited by the caller's decision). */
  send(selfId: number, groupId: number, text: string): Promise<unknown>;
}

/** `11月28日 09:30`, the server's local time. */
export function shortLocal(atMs: number): string {
  const date = new Date(atMs);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getMonth() + 1}月${date.getDate()}日 ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

const ENDED: Record<Exclude<AgentTask['status'], 'open'>, string> = {
  done: '已经发过了',
  cancelled: '已经取消了',
  failed: '没能发出，已经结束了',
};

export class TaskCommands {
  readonly #deps: TaskCommandDeps;

  constructor(deps: TaskCommandDeps) {
    this.#deps = deps;
  }

  /** The reminder command the message carries, or null. */
  parse(message: GroupChatMessage): TaskCommand | null {
    return parseTaskCommand(this.#deps.address(message).text);
  }

  /** Whether the message was a reminder command (answered or deliberately left to another account). */
  async onGroupMessage(message: GroupChatMessage): Promise<boolean> {
    const { text, addressed } = this.#deps.address(message);
    const command = parseTaskCommand(text);
    if (!command) return false;
    const answer =
      command.kind === 'list'
        ? await this.#list(message, addressed)
        : await this.#cancel(message, command.id, addressed);
    if (answer !== null) await this.#deps.send(message.selfId, message.groupId, answer);
    return true;
  }

  async #list(message: GroupChatMessage, addressed: boolean): Promise<string | null> {
    const open = await this.#deps.reminders.open(message, TASKS.chatListMax + 1);
    const mine = open.filter((task) => task.selfId === message.selfId);
    if (mine.length === 0) return addressed ? '你现在没有待发的提醒。' : null;
    const lines = mine.slice(0, TASKS.chatListMax).map((task) => `#${task.id} ${shortLocal(task.dueAt)} ${task.text}`);
    if (mine.length > TASKS.chatListMax) lines.push('……');
    return `你的提醒：\n${lines.join('\n')}\n发送「取消提醒 编号」可以取消。`;
  }

  async #cancel(message: GroupChatMessage, id: number, addressed: boolean): Promise<string | null> {
    const member = {
      selfId: message.selfId,
      groupId: message.groupId,
      userId: message.userId,
      name: message.senderName,
    };
    const outcome = await this.#deps.reminders.cancelByCreator(member, id);
    if (outcome.kind === 'not_found') return addressed ? `没有找到你的提醒 #${id}。` : null;
    if (outcome.kind === 'cancelled') return `好的，提醒 #${id} 已取消。`;
    return `提醒 #${id} ${ENDED[outcome.task.status as keyof typeof ENDED] ?? '已经结束了'}。`;
  }
}
