/**
 * The rule of proactive speech (docs/repeater.md#proactive-speech, the origin's rule): when a group
 * counts as quiet, and which of its own recent lines the bot may say then. Pure functions, no state.
 */
import { isCommand } from './bot-suspects.ts';
import { PROACTIVE } from './limits.ts';
import type { WindowMessage } from './message-window.ts';
import { pickOne, type RandomSource } from './random.ts';

/** Whether the group talks first: its own switch, else the global default. */
export function proactiveOn(groupSwitch: boolean | null, globalDefault: boolean): boolean {
  return groupSwitch ?? globalDefault;
}

/**
 * How long the group must be quiet before the bot talks: its average message interval (over the
 * window's messages, oldest to newest, platform seconds) × `factor` + `floorMs`. Null when the
 * window holds too few messages for an average (the origin's 10).
 */
export function quietAfterMs(times: readonly number[], factor: number, floorMs: number): number | null {
  if (times.length < PROACTIVE.minWindowMessages) return null;
  const first = times[0] as number;
  const last = times[times.length - 1] as number;
  const averageSec = Math.max(0, last - first) / (times.length - 1);
  return averageSec * 1000 * factor + floorMs;
}

export interface LineFilter {
  /** Lower-cased names of the bot: a line that starts with one addresses the bot, not the group. */
  nicknames: readonly string[];
  /** On the group's or the global blacklist (docs/rules.md#bans). */
  banned(keywords: string): boolean;
  /** Refused by the contamination guard (docs/rules.md#guard). */
  guarded(raw: string): boolean;
  /** Keywords of the bot's newest proactive lines in the group: not said again soon. */
  saidKeywords: ReadonlySet<string>;
  random: RandomSource;
}

/** Cards, quotes and pokes make no sense out of their moment. */
const UNFIT_PREFIXES = ['[CQ:xml', '[CQ:json', '[CQ:reply', '[CQ:poke', '[CQ:forward'];

/** Whether one window message may be said again by the bot. */
export function sayable(message: WindowMessage, filter: LineFilter): boolean {
  const raw = message.rawMessage;
  if (raw.trim() === '' || message.keywords === '' || raw.includes('\n')) return false;
  if (UNFIT_PREFIXES.some((prefix) => raw.startsWith(prefix))) return false;
  // Said unprompted, a command would set the group's other bots off.
  if (isCommand(raw)) return false;
  const lower = raw.toLowerCase();
  if (filter.nicknames.some((name) => name !== '' && lower.startsWith(name))) return false;
  if (filter.saidKeywords.has(message.keywords)) return false;
  if (filter.banned(message.keywords)) return false;
  return !filter.guarded(raw);
}

/**
 * The lines to say, from the group's own recent messages: the sayable ones grouped by keywords, a
 * random group, a random message of it (so a line repeated often is not favoured); then, with
 * probability 0.5, one more from another group, up to two. Empty: nothing may be said.
 */
export function pickLines(messages: readonly WindowMessage[], filter: LineFilter): WindowMessage[] {
  const groups = new Map<string, WindowMessage[]>();
  for (const message of messages) {
    if (!sayable(message, filter)) continue;
    const group = groups.get(message.keywords);
    if (group) group.push(message);
    else groups.set(message.keywords, [message]);
  }
  const picked: WindowMessage[] = [];
  while (groups.size > 0 && picked.length < PROACTIVE.maxLines) {
    if (picked.length > 0 && filter.random.next() >= PROACTIVE.continueProbability) break;
    const keywords = pickOne([...groups.keys()], filter.random) as string;
    const line = pickOne(groups.get(keywords) as WindowMessage[], filter.random) as WindowMessage;
    groups.delete(keywords);
    picked.push(line);
  }
  return picked;
}
