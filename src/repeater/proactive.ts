/**
 * Proactive speech (docs/repeater.md#proactive-speech, the origin's rule): a background check
 * (src/workers/interval-job.ts, every CHORUS_REPEATER_PROACTIVE_CHECK_SEC) finds groups where the
 * silence since the last member message has reached the group's average interval × factor + floor,
 * and the bot says a line the group itself said lately. Nothing here runs per message: the
 * repeater only keeps `QuietGroups` current.
 *
 * Once per silence a group with proactive speech on is handled: a line said is the decision
 * `proactive`; a silence that passed without one (silenced, muted, replies off, another process
 * of the fleet speaking, nothing sayable) is `proactive-skipped` with its cause, both on the Why page.
 */
import { GLOBAL_BAN_GROUP, PROACTIVE, WINDOW } from './limits.ts';
import { claimKey, type ClaimVerdict } from './fleet-claim.ts';
import { replyBlocked } from './group-controls.ts';
import { pickLines, proactiveOn, quietAfterMs } from './proactive-rule.ts';
import { pickOne, type RandomSource } from './random.ts';
import type { Repeater } from './repeater.ts';
import type { DecisionCause, RepeaterDecision } from './decision.ts';
import type { QuietGroup } from './quiet-groups.ts';
import type { Clock } from '../common/clock.ts';

export interface ProactiveOptions {
  repeater: Repeater;
  clock: Clock;
  random: RandomSource;
  /** The contamination guard (docs/rules.md#guard): a line it refuses is never said. */
  guarded: (raw: string) => boolean;
  /** The fleet claim (docs/rules.md#fleet-claims); absent or undefined: no other process speaks. */
  claim?: (key: string, groupId: number) => Promise<ClaimVerdict> | undefined;
}

export class ProactiveSpeaker {
  readonly #options: ProactiveOptions;
  /** Per group, the keywords of the newest proactive lines (the origin's "last 10 spoken"). */
  readonly #said = new Map<number, string[]>();

  constructor(options: ProactiveOptions) {
    this.#options = options;
  }

  /** Whether any group with proactive speech on waits for its silence (else the check may sleep). */
  anyWaiting(): boolean {
    for (const [groupId] of this.#options.repeater.quiet.waiting()) if (this.switchedOn(groupId)) return true;
    return false;
  }

  /** Whether the group talks first (its switch, else the global default) and is not ignored. */
  switchedOn(groupId: number): boolean {
    const repeater = this.#options.repeater;
    const config = repeater.controls.group(groupId);
    return !config.banned && proactiveOn(config.proactive, repeater.settings.proactive.enabled);
  }

  /** One check of every group a member spoke in since the bot last did. */
  async check(): Promise<void> {
    const nowMs = this.#options.clock.monotonicMs();
    const due: [number, QuietGroup][] = [];
    for (const [groupId, group] of this.#options.repeater.quiet.waiting()) {
      if (this.#quietLongEnough(groupId, group, nowMs)) due.push([groupId, { ...group }]);
    }
    for (const [groupId, group] of due) await this.#speak(groupId, group, nowMs);
  }

  #quietLongEnough(groupId: number, group: QuietGroup, nowMs: number): boolean {
    const repeater = this.#options.repeater;
    const settings = repeater.settings.proactive;
    if (!this.switchedOn(groupId)) return false;
    const times = repeater.window.recent(groupId, WINDOW.messagesPerGroup).map((m) => m.time);
    const needed = quietAfterMs(times, settings.factor, settings.floorMs);
    return needed !== null && nowMs - group.heardMs >= needed;
  }

  async #speak(groupId: number, group: QuietGroup, nowMs: number): Promise<void> {
    const repeater = this.#options.repeater;
    const { selfId } = group;
    repeater.quiet.handled(groupId, nowMs);
    const quietSec = Math.round((nowMs - group.heardMs) / 1000);
    const skip = (code: string) => this.#record(groupId, selfId, 'skipped', { code, params: { quiet_sec: quietSec } });
    const config = repeater.controls.group(groupId);
    if (!repeater.accountOf(selfId).enabled) return skip('proactive-disabled');
    const blocked = replyBlocked(config, Math.floor(this.#options.clock.nowMs() / 1000));
    if (blocked) return skip(blocked === 'reply-off' ? 'proactive-reply-off' : 'proactive-silenced');
    if (repeater.quiet.muted(groupId, selfId, nowMs)) return skip('proactive-muted');

    const messages = repeater.window.recent(groupId, WINDOW.messagesPerGroup);
    const last = messages.at(-1);
    if (!last) return skip('proactive-no-line');
    // Every process of a fleet saw the same last message: the claim on it lets exactly one speak.
    const claim = this.#options.claim?.(`proactive|${claimKey({ groupId, ...last })}`, groupId);
    if (claim !== undefined && (await claim) === 'lost') return skip('proactive-claimed');

    const said = this.#said.get(groupId) ?? [];
    const active = new Set([...repeater.bans.lists(groupId).active, ...repeater.bans.lists(GLOBAL_BAN_GROUP).active]);
    // A first strike (the reserve list) is enough to keep a line the bot chose itself out of its mouth.
    const reserve = new Set(repeater.bans.lists(groupId).reserve);
    const lines = pickLines(messages, {
      nicknames: repeater.nicknamesOf(selfId),
      banned: (keywords) => active.has(keywords) || reserve.has(keywords),
      guarded: this.#options.guarded,
      saidKeywords: new Set(said),
      random: this.#options.random,
    });
    if (lines.length === 0) return skip('proactive-no-line');

    const poke = this.#options.random.next() < repeater.settings.proactive.pokeProbability;
    const humans = messages.filter((m) => m.userId !== selfId).map((m) => m.userId);
    const pokeUserId = poke ? (pickOne(humans, this.#options.random) ?? null) : null;
    repeater.say(groupId, selfId, lines, last.keywords, pokeUserId);
    this.#said.delete(groupId);
    this.#said.set(groupId, [...said, ...lines.map((line) => line.keywords)].slice(-PROACTIVE.recentLines));
    if (this.#said.size > PROACTIVE.groupsRemembered) this.#said.delete(this.#said.keys().next().value as number);
    repeater.quiet.spoke(groupId, nowMs);
    const first = lines[0] as (typeof lines)[number];
    this.#record(
      groupId,
      selfId,
      'replied',
      {
        code: 'proactive',
        params: { quiet_sec: quietSec, lines: lines.length, answer: first.rawMessage, poke: pokeUserId ?? 0 },
      },
      lines,
    );
  }

  #record(
    groupId: number,
    selfId: number,
    outcome: 'replied' | 'skipped',
    cause: DecisionCause,
    lines: readonly { rawMessage: string; keywords: string }[] = [],
  ): void {
    const decision: RepeaterDecision = {
      groupId,
      selfId,
      userId: 0,
      messageId: 0,
      outcome,
      reason: outcome === 'replied' ? 'proactive' : 'proactive-skipped',
      texts: lines.map((line) => line.rawMessage),
      answerKeywords: lines[0]?.keywords ?? null,
      keywords: '',
      learn: 'not-offered',
      cache: null,
      threshold: null,
      latencyMs: 0,
      cause,
      rawMessage: '',
      senderName: '',
    };
    this.#options.repeater.record(decision);
  }
}
