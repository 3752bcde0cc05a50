/**
 * 「记住我」 and 「忘记我」 as the member memory obeys them (docs/agent-memory.md): consent granted,
 * or every fact, the consent and the pending observations about the member deleted at once; each
 * answered in Chinese and recorded in the activity log with the member as the actor.
 */
import type { ActivityRecorder } from '../../domain/activity.ts';
import type { GroupChatMessage } from '../../domain/chat.ts';
import type { MemberCommand, MemberCommandHandler } from '../../repeater/member-command.ts';
import type { AgentMemory } from './member-memory.ts';

/** What consent lets the bot keep (the scopes stored with it). */
export const CONSENT_SCOPES = ['facts'] as const;

export const REMEMBER_ACK =
  '好的，我会记住你在群里聊到的一些长期的事（比如爱好、喜欢的称呼），只用来和你聊天，不会记你的QQ号。' +
  '想让我全部忘掉，随时对我说「忘记我」。';
export const ALREADY_REMEMBERING = '我已经在记住你了。想让我全部忘掉，对我说「忘记我」就好。';
export const NOTHING_TO_FORGET = '我本来就没有记住关于你的任何事。';

export function forgetAck(facts: number): string {
  return facts > 0
    ? `好的，关于你的 ${facts} 条记录已经全部删除，我也不会再记住你了。想让我再记住你，说「记住我」。`
    : '好的，我没有记下关于你的事，也不会再记住你了。想让我再记住你，说「记住我」。';
}

export function memoryCommands(memory: AgentMemory, activity: ActivityRecorder): MemberCommandHandler {
  return {
    async obey(message: GroupChatMessage, command: MemberCommand): Promise<string | null> {
      const { selfId, userId, groupId } = message;
      const actor = { kind: 'chat', userId, name: message.senderName } as const;
      const time = memory.nowSec();
      if (command === 'remember') {
        const { before } = await memory.facts.grant(selfId, userId, CONSENT_SCOPES, time);
        if (before) return ALREADY_REMEMBERING;
        await activity.record({
          kind: 'memory_consent',
          actor,
          groupId,
          time,
          params: { bot_id: selfId, user_id: userId, granted: true, facts: 0 },
        });
        return REMEMBER_ACK;
      }
      const forgotten = await memory.facts.forget(selfId, userId);
      if (!forgotten.hadConsent && forgotten.facts === 0) return NOTHING_TO_FORGET;
      await activity.record({
        kind: 'memory_forget',
        actor,
        groupId,
        time,
        params: { bot_id: selfId, user_id: userId, facts: forgotten.facts, observations: forgotten.observations },
      });
      return forgetAck(forgotten.facts);
    },
  };
}
