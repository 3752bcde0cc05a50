/**
 * Reminders as the rest of the service asks for them (docs/agent-tasks.md): made by the model's
 * `create_reminder` tool for the member who asked, listed and cancelled by that member in chat or
 * from the console. Every creation and cancellation lands in the activity log (who, what, where,
 * when); a creation wakes the scheduler so a reminder due soon is not left to the next poll.
 */
import type { Clock } from '../../common/clock.ts';
import type { ActivityActor, ActivityRecorder } from '../../domain/activity.ts';
import type { AgentTask, AgentTaskStore, CreateOutcome } from '../../store/agent-tasks-store.ts';
import { TASKS } from './limits.ts';

/** The store operations reminders use (AgentTaskStore satisfies it). */
export type TaskRepository = Pick<AgentTaskStore, 'create' | 'get' | 'list' | 'cancel'>;

export interface RemindersOptions {
  store: TaskRepository;
  activity: ActivityRecorder;
  clock: Clock;
  /** Told after a reminder was stored (the scheduler looks again). */
  onCreated?: (task: AgentTask) => void;
}

/** Who made or cancels a reminder in chat: the account, its group and the member. */
export interface ChatMember {
  selfId: number;
  groupId: number;
  userId: number;
  /** The member's nickname, for the activity log. */
  name: string;
}

export type CancelOutcome =
  { kind: 'cancelled'; task: AgentTask } | { kind: 'not_found' } | { kind: 'not_open'; task: AgentTask };

export class Reminders {
  readonly #options: RemindersOptions;

  constructor(options: RemindersOptions) {
    this.#options = options;
  }

  async create(member: ChatMember, text: string, dueAt: number): Promise<CreateOutcome> {
    const { store, clock } = this.#options;
    const outcome = await store.create(
      {
        selfId: member.selfId,
        groupId: member.groupId,
        creatorUserId: member.userId,
        text,
        dueAt,
        createdAt: clock.nowMs(),
      },
      { perGroup: TASKS.perGroup, perMember: TASKS.perMember },
    );
    if (!outcome.ok) return outcome;
    await this.#record('agent_task_create', { kind: 'chat', userId: member.userId, name: member.name }, outcome.task);
    this.#options.onCreated?.(outcome.task);
    return outcome;
  }

  /** The member's open reminders in the group, soonest first. */
  open(member: Pick<ChatMember, 'groupId' | 'userId'>, limit: number): Promise<AgentTask[]> {
    return this.#options.store.list({
      groupId: member.groupId,
      creatorUserId: member.userId,
      status: 'open',
      limit,
    });
  }

  /**
   * The creator cancels in chat: only their own reminder, in the group it was made in, through the
   * account that made it (each account of a fleet answers for its own).
   */
  cancelByCreator(member: ChatMember, id: number): Promise<CancelOutcome> {
    const mine = (task: AgentTask) =>
      task.selfId === member.selfId && task.groupId === member.groupId && task.creatorUserId === member.userId;
    return this.#cancel(id, 'chat', { kind: 'chat', userId: member.userId, name: member.name }, mine);
  }

  /** A console cancel (write level): any open reminder. */
  cancelFromConsole(id: number, actor: ActivityActor): Promise<CancelOutcome> {
    return this.#cancel(id, 'console', actor, () => true);
  }

  async #cancel(
    id: number,
    by: 'chat' | 'console',
    actor: ActivityActor,
    allowed: (task: AgentTask) => boolean,
  ): Promise<CancelOutcome> {
    const { store, clock } = this.#options;
    const found = await store.get(id);
    if (!found || !allowed(found)) return { kind: 'not_found' };
    const creator = by === 'chat' ? { groupId: found.groupId, userId: found.creatorUserId } : undefined;
    const cancelled = await store.cancel(id, by, clock.nowMs(), creator);
    if (!cancelled) return { kind: 'not_open', task: (await store.get(id)) ?? found };
    await this.#record('agent_task_cancel', actor, cancelled);
    return { kind: 'cancelled', task: cancelled };
  }

  async #record(kind: 'agent_task_create' | 'agent_task_cancel', actor: ActivityActor, task: AgentTask) {
    await this.#options.activity.record({
      kind,
      actor,
      groupId: task.groupId,
      time: Math.floor(this.#options.clock.nowMs() / 1000),
      params: { task_id: task.id, bot_id: task.selfId, due_at: Math.floor(task.dueAt / 1000), text: task.text },
    });
  }
}
