/**
 * For end-to-end tests of a running `chorus serve`: the console API over real HTTP with a token,
 * polling until something holds, and a group conversation through a scripted OneBot peer that
 * teaches the bot a phrase and asks it back.
 */
import type { OneBotPeer } from '../fixtures/onebot-peer.ts';

export interface Api {
  call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; data: T; detail: string }>;
}

/** `base` like http://127.0.0.1:8088/chorus. */
export function consoleApi(base: string, token: string): Api {
  return {
    async call(method, path, body) {
      const response = await fetch(`${base}/api${path}`, {
        method,
        headers: { 'x-chorus-token': token, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await response.json()) as { data?: never; detail?: string };
      return { status: response.status, data: json.data as never, detail: json.detail ?? '' };
    },
  };
}

export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export class Conversation {
  #second = Math.floor(Date.now() / 1000) - 50_000;
  constructor(
    readonly peer: OneBotPeer,
    readonly group: number,
  ) {}

  say(userId: number, text: string): number {
    return this.peer.groupMessage({ groupId: this.group, userId, text, time: ++this.#second });
  }

  /** A trigger and its answer from two members, `rounds` times, with a filler between rounds. */
  teach(trigger: string, answer: string, rounds: number): void {
    for (let round = 0; round < rounds; round++) {
      this.say(2, trigger);
      this.say(3, answer);
      // A filler of its own per pair: a shared one would itself learn the triggers as answers.
      this.say(4, `${trigger}之后随便聊聊第${round}次`);
    }
  }

  /**
   * Asks `trigger` and collects what the bot sent in the group meanwhile (its answer, and perhaps
   * answers to the messages just before, which the bot also learned from).
   */
  async ask(trigger: string, waitMs: number): Promise<string[]> {
    const before = this.peer.sent.length;
    this.say(9, trigger);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    return this.peer.sent
      .slice(before)
      .filter((message) => message.groupId === this.group)
      .map((message) => message.message);
  }

  /**
   * Asks `trigger` once and waits for the bot to send `answer` in the group; false if it has not
   * within `boundMs` (a failure bound for a busy machine, not a timing the test depends on).
   */
  async answersOnce(trigger: string, answer: string, boundMs = 20_000): Promise<boolean> {
    const before = this.peer.sent.length;
    this.say(9, trigger);
    const deadline = Date.now() + boundMs;
    const answered = () =>
      this.peer.sent.slice(before).some((message) => message.groupId === this.group && message.message === answer);
    while (!answered() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return answered();
  }

  /** Asks until `answer` comes back (true), or gives up after the deadline. */
  async answers(trigger: string, answer: string): Promise<true> {
    return until(`"${answer}" as the answer to "${trigger}"`, async () =>
      (await this.ask(trigger, 1000)).includes(answer) ? true : undefined,
    );
  }
}

/** The settings under which a taught phrase is answered at once, every time. */
export const EAGER_REPEATER: Record<string, string> = {
  CHORUS_REPEATER_COOLDOWN_SEC: '0',
  CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
  CHORUS_REPEATER_SPLIT_PROBABILITY: '0',
  CHORUS_REPEATER_BUNDLE_CACHE_SEC: '0',
  CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC: '0',
  CHORUS_REPEATER_ANSWER_THRESHOLD: '3',
  CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: '0,0,1',
  CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: '1',
};
