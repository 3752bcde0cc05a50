/**
 * The chat in the log (CHORUS_LOG_CHAT): each group message received and each reply sent, at
 * `info`, so the console's live log shows what the bot hears and says. `console` (the default)
 * writes these lines to the console's log ring only; `all` also to standard output, where QQ
 * numbers (group, sender, any run of five or more digits in the text) are hidden, since stdout
 * logs end up in journals and log collectors; `off` writes none. The setting and the log level
 * are read per line, so a save applies at once.
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { GroupChatMessage } from '../domain/chat.ts';
import type { RepeaterDecision } from '../repeater/index.ts';
import { boundLogFields } from './log-fields.ts';

export type ChatLogMode = 'console' | 'all' | 'off';

export interface ChatLogOptions {
  mode: () => ChatLogMode;
  /** The service's logger: its level decides whether `info` lines are written at all. */
  logger: Pick<Logger, 'isLevelEnabled'>;
  /** The console's ring (its live log). */
  logRing: { stream(): DestinationStream };
  /** Standard output, as the service's lines go there. */
  logOutput: DestinationStream;
}

/** Longer lines are cut: the log shows what was said, not a pasted essay. */
const MAX_TEXT = 200;
const NUMBER = /\d{5,}/g;
const HIDDEN = '[hidden]';

const clip = (text: string) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);

export class ChatLog {
  readonly #options: ChatLogOptions;
  readonly #ring: Logger;
  readonly #stdout: Logger;

  constructor(options: ChatLogOptions) {
    this.#options = options;
    const settings = { level: 'info', base: { service: 'chorus' }, formatters: { log: boundLogFields } };
    this.#ring = pino(settings, options.logRing.stream());
    this.#stdout = pino(settings, options.logOutput);
  }

  /** A group message; the bot's own come back as sent by itself and the reply line told them. */
  received(message: GroupChatMessage, sentBySelf = false): void {
    if (sentBySelf) return;
    const text = clip(message.plainText || message.rawMessage);
    this.#write(
      { chat: 'received', group: message.groupId, user: message.userId, bot: message.selfId, text },
      'chat: message received',
    );
  }

  /** A decision that replied: what was sent, part by part. */
  decided(decision: RepeaterDecision): void {
    if (decision.outcome !== 'replied' || decision.texts.length === 0) return;
    const text = clip(decision.texts.join(' / '));
    this.#write(
      { chat: 'replied', group: decision.groupId, bot: decision.selfId, reason: decision.reason, text },
      'chat: reply sent',
    );
  }

  #write(fields: Record<string, unknown> & { text: string }, message: string): void {
    const mode = this.#options.mode();
    if (mode === 'off' || !this.#options.logger.isLevelEnabled('info')) return;
    this.#ring.info(fields, message);
    if (mode !== 'all') return;
    const hidden: Record<string, unknown> = { ...fields, text: fields.text.replace(NUMBER, HIDDEN) };
    for (const key of ['group', 'user', 'bot']) if (key in hidden) hidden[key] = HIDDEN;
    this.#stdout.info(hidden, message);
  }
}
