/**
 * The agent platform's tasks and tools in `chorus serve` (docs/agent-tasks.md): the toolbox the
 * model's chat path calls, the reminder scheduler sending through the repeater's chat path, and
 * the creator's chat commands. A reminder passes what any reply passes: the contamination guard,
 * the group's and the everywhere blacklist (a first strike too, as for proactive lines), and the
 * group's switches (ignored or replies off: it fails; silenced: it waits). It is recorded like a
 * reply, so 「不可以」 on it bans its text in that group.
 */
import type { Clock } from '../common/clock.ts';
import type { Log } from '../common/log.ts';
import { TaskSet } from '../common/task-set.ts';
import { errorMessage } from '../common/errors.ts';
import type { ConfigStore } from '../config/index.ts';
import { rejectsMessage } from '../domain/guard.ts';
import { Reminders } from '../agent/tasks/reminders.ts';
import { ReminderScheduler, type ReminderJudgement, type ReminderOutlet } from '../agent/tasks/scheduler.ts';
import { TaskCommands } from '../agent/tasks/chat-commands.ts';
import { Toolbox } from '../agent/tools/toolbox.ts';
import { describeText } from '../repeater/keywords.ts';
import { mentionsAccount, stripNickname } from '../repeater/cq-text.ts';
import { replyBlocked } from '../repeater/group-controls.ts';
import { GLOBAL_BAN_GROUP, WINDOW } from '../repeater/limits.ts';
import type { ActivityRecorder } from '../domain/activity.ts';
import type { AgentTasksPort } from '../console/deps.ts';
import { AgentTaskStore, type AgentTask } from '../store/agent-tasks-store.ts';
import type { LocalStore } from '../store/open-store.ts';
import { escapeText } from '../onebot/index.ts';
import type { ChatWiring } from './chat-wiring.ts';

export interface AgentTasksWiring {
  /** The `AgentToolbox` for the model's chat path. */
  readonly toolbox: Toolbox;
  readonly reminders: Reminders;
  readonly scheduler: ReminderScheduler;
  /** Whether a message is a reminder command (the model's chat path leaves those alone). */
  readonly isCommand: (message: Parameters<TaskCommands['onGroupMessage']>[0]) => boolean;
  stop(deadlineMs: number): Promise<void>;
}

export interface AgentTasksWiringOptions {
  store: LocalStore;
  chat: ChatWiring;
  config: ConfigStore;
  clock: Clock;
  log: Log;
}

/** The console's port over the store alone: it lists and cancels in any process, chat side or not. */
export function agentTasksPort(store: LocalStore, clock: Clock, activity: ActivityRecorder): AgentTasksPort {
  const tasks = new AgentTaskStore(store.engine);
  const reminders = new Reminders({ store: tasks, activity, clock });
  return {
    list: (query) => tasks.list(query),
    cancel: (id, actor) => reminders.cancelFromConsole(id, actor),
  };
}

export function wireAgentTasks(options: AgentTasksWiringOptions): AgentTasksWiring {
  const { store, chat, config, clock, log } = options;
  const repeater = chat.repeater;
  const tasks = new AgentTaskStore(store.engine);
  const keywordsOf = (text: string) => describeText(text, text, chat.keywords).keywords;

  const outlet: ReminderOutlet = {
    accounts: () => chat.platforms.bots().map((bot) => bot.selfId),
    judge: (task): ReminderJudgement => {
      const group = repeater.controls.group(task.groupId);
      if (group.banned || !repeater.accountOf(task.selfId).enabled) return { refused: 'group_off' };
      const blocked = replyBlocked(group, Math.floor(clock.nowMs() / 1000));
      if (blocked === 'reply-off') return { refused: 'group_off' };
      if (blocked) return 'wait';
      if (rejectsMessage(config.current().guard, task.text)) return { refused: 'guarded' };
      const keywords = keywordsOf(task.text);
      const lists = repeater.bans.lists(task.groupId);
      const banned = [...lists.active, ...lists.reserve, ...repeater.bans.lists(GLOBAL_BAN_GROUP).active];
      return banned.includes(keywords) ? { refused: 'banned' } : 'send';
    },
    send: async (task) => {
      const text = reminderMessage(task);
      const sent = await chat.pictures.sendGroupMessage(task.selfId, task.groupId, text);
      // Recorded like a reply: 「不可以」 quoting it, or 「不可以发这个」 after it, bans its text here.
      const keywords = keywordsOf(task.text);
      repeater.records.add(task.groupId, {
        botId: task.selfId,
        time: Math.floor(clock.nowMs() / 1000),
        preRawMessage: '',
        preKeywords: keywords,
        reply: text,
        replyKeywords: keywords,
        messageId: sent.messageId,
      });
    },
  };
  const scheduler = new ReminderScheduler({ store: tasks, outlet, clock, log });
  const reminders = new Reminders({
    store: tasks,
    activity: store.activity,
    clock,
    onCreated: () => scheduler.wake(),
  });
  const toolbox = new Toolbox({
    reminders,
    corpus: store.corpus,
    keywordsOf,
    recentTopics: (groupId) =>
      repeater.window
        .recent(groupId, WINDOW.messagesPerGroup, (message) => message.isPlainText)
        .flatMap((message) => message.keywords.split(' ')),
    bannedIn: (groupId) =>
      new Set([...repeater.bans.lists(groupId).active, ...repeater.bans.lists(GLOBAL_BAN_GROUP).active]),
    log,
  });

  const address = (message: Parameters<TaskCommands['onGroupMessage']>[0]) => {
    const text = stripNickname(message.plainText, repeater.nicknamesOf(message.selfId));
    const mentioned = message.mentionsSelf || mentionsAccount(message.rawMessage, message.selfId);
    return { text, addressed: mentioned || text !== message.plainText };
  };
  const commands = new TaskCommands({
    reminders,
    address,
    send: (selfId, groupId, text) => chat.pictures.sendGroupMessage(selfId, groupId, text),
  });
  const handling = new TaskSet((label, error) => log.warn({ error: errorMessage(error) }, `${label} failed`));
  const onMessage: Parameters<typeof chat.platforms.on<'group_message'>>[1] = (message, meta) => {
    if (meta.sentBySelf || message.userId === message.selfId) return;
    if (repeater.controls.group(message.groupId).banned || repeater.controls.user(message.userId).banned) return;
    handling.run('reminder command', () => commands.onGroupMessage(message));
  };
  const onConnected = () => scheduler.wake();
  chat.platforms.on('group_message', onMessage);
  chat.platforms.on('bot_connected', onConnected);
  scheduler.start();

  return {
    toolbox,
    reminders,
    scheduler,
    isCommand: (message) => commands.parse(message) !== null,
    async stop(deadlineMs) {
      chat.platforms.off('group_message', onMessage);
      chat.platforms.off('bot_connected', onConnected);
      await scheduler.stop(deadlineMs / 2);
      await handling.drain(deadlineMs / 2);
    },
  };
}

/** What the group hears: a mention of the member who asked, then the text (CQ-escaped: said as typed). */
export function reminderMessage(task: AgentTask): string {
  return `[CQ:at,qq=${task.creatorUserId}] 提醒：${escapeText(task.text)}`;
}
