/**
 * A synthetic but plausible group conversation for bench:repeater, generated from a seed: phrase
 * pairs over a small vocabulary recur with Zipf popularity (so the popular ones are learned within
 * seconds and then answered, in their group and across groups), mixed with one-off chatter,
 * stickers, "+1" chains, quoted replies, mentions, messages addressed to the bot and long posts.
 * Groups differ in activity; a group's lines come in its own order, interleaved with the others.
 * Every message is one second after the previous one (Chorus pairs a message with the last one
 * strictly earlier in its group) and has a unique message id.
 */
import { cumulativeOf, intBetween, mulberry32, weighted } from '../lib/rng.ts';

export interface ChatLine {
  readonly groupId: number;
  readonly userId: number;
  /** CQ-coded. */
  readonly message: string;
  readonly messageId: number;
  /** Unix seconds. */
  readonly time: number;
  readonly kind: LineKind;
}

export type LineKind =
  'trigger' | 'answer' | 'chatter' | 'repeat' | 'sticker' | 'quote' | 'mention' | 'addressed' | 'long';

export interface ConversationOptions {
  seed: number;
  groupIds: readonly number[];
  membersPerGroup: number;
  /** Time of the first message (unix seconds). */
  firstTime: number;
  /** The bot's name: messages starting with it are addressed to the bot. */
  botName: string;
}

const TIMES = ['今天', '明天', '周末', '晚上', '中午', '下午', '早上', '昨天', '下周', '待会'];
const ACTIVITIES = [
  '吃火锅',
  '打游戏',
  '加班',
  '跑步',
  '看电影',
  '喝奶茶',
  '点外卖',
  '开黑',
  '逛街',
  '睡懒觉',
  '写代码',
  '打篮球',
  '去爬山',
  '看直播',
  '钓鱼',
  '做饭',
  '买菜',
  '复习',
  '打麻将',
  '唱歌',
  '追剧',
  '健身',
  '遛狗',
  '撸猫',
  '开会',
  '出差',
  '搬家',
  '抢票',
  '拼车',
  '吃烧烤',
];
const TRIGGERS: ((time: string, activity: string) => string)[] = [
  (time, activity) => `${time}${activity}吗`,
  (time, activity) => `${time}一起${activity}`,
  (_time, activity) => `有人${activity}吗`,
  (time, activity) => `${time}谁要${activity}`,
  (time, activity) => `${time}去不去${activity}`,
];
const ANSWERS: ((activity: string) => string)[] = [
  () => '好啊',
  () => '算了吧',
  () => '带我一个',
  () => '下次吧',
  () => '太累了不去',
  () => '冲冲冲',
  () => '可以可以',
  () => '没空啊',
  () => '在路上了',
  () => '等我五分钟',
  (activity) => `${activity}走起`,
  (activity) => `又${activity}啊`,
  (activity) => `我也想${activity}`,
  () => '羡慕',
  () => '几点集合',
];
const FILLERS = ['嗯嗯', '好的', '草', '666', '确实', '笑死', '啊这', '？', '[CQ:face,id=178]', '收到', '真的假的'];
const REPEATABLE = ['+1', '哈哈哈哈', '666', '好耶', '来了来了', '[CQ:face,id=277]'];
const SUBJECTS = ['我', '你', '老板', '同事', '室友', '我妈', '隔壁', '楼下', '我们组', '他们'];
const TAILS = ['了', '呢', '啊', '吧', '哈哈', '真的', '。', '！', '嘛', '……'];
const STICKERS = 40;
const PAIRS = 400;

interface Pair {
  trigger: string;
  answers: string[];
}

interface GroupState {
  readonly groupId: number;
  readonly members: readonly number[];
  readonly pending: { userId: number; message: string; kind: LineKind }[];
  readonly recentIds: number[];
}

/** An endless stream of group messages; `next()` is cheap (no I/O, a few string joins). */
export class Conversation {
  readonly kinds = new Map<LineKind, number>();
  readonly #random: () => number;
  readonly #pairs: Pair[];
  readonly #pairWeights: number[];
  readonly #groups: GroupState[];
  readonly #groupWeights: number[];
  readonly #botName: string;
  #nextId = 1;
  #time: number;

  constructor(options: ConversationOptions) {
    this.#random = mulberry32(options.seed);
    this.#botName = options.botName;
    this.#time = options.firstTime;
    this.#pairs = Array.from({ length: PAIRS }, () => this.#pair());
    // Zipf-like popularity: a few pairs are said all the time, most now and then.
    this.#pairWeights = cumulativeOf(this.#pairs.map((_, index) => 1 / (index + 1)));
    this.#groups = options.groupIds.map((groupId, index) => ({
      groupId,
      members: Array.from({ length: options.membersPerGroup }, (_, member) => 3_000_000 + index * 1000 + member),
      pending: [],
      recentIds: [],
    }));
    // Some groups are busy, most are quieter.
    this.#groupWeights = cumulativeOf(this.#groups.map((_, index) => 1 / Math.sqrt(index + 1)));
  }

  next(): ChatLine {
    const group = this.#groups[weighted(this.#random, this.#groupWeights)] as GroupState;
    if (group.pending.length === 0) this.#segment(group);
    const line = group.pending.shift() as GroupState['pending'][number];
    const messageId = this.#nextId++;
    group.recentIds.push(messageId);
    if (group.recentIds.length > 20) group.recentIds.shift();
    this.kinds.set(line.kind, (this.kinds.get(line.kind) ?? 0) + 1);
    return {
      groupId: group.groupId,
      userId: line.userId,
      message: line.message,
      messageId,
      time: this.#time++,
      kind: line.kind,
    };
  }

  #pair(): Pair {
    const time = this.#pick(TIMES);
    const activity = this.#pick(ACTIVITIES);
    const trigger = this.#pick(TRIGGERS)(time, activity);
    const answers = Array.from({ length: intBetween(this.#random, 1, 3) }, () => this.#pick(ANSWERS)(activity));
    return { trigger, answers };
  }

  /** Queues the group's next few lines. */
  #segment(group: GroupState): void {
    const say = (message: string, kind: LineKind, userId = this.#member(group)) =>
      group.pending.push({ userId, message, kind });
    const roll = this.#random();
    if (roll < 0.5) {
      const pair = this.#pairs[weighted(this.#random, this.#pairWeights)] as Pair;
      const asker = this.#member(group);
      say(pair.trigger, 'trigger', asker);
      say(this.#pick(pair.answers), 'answer', this.#member(group, asker));
      if (this.#random() < 0.3) say(this.#pick(pair.answers), 'answer', this.#member(group, asker));
    } else if (roll < 0.72) {
      say(this.#random() < 0.5 ? this.#pick(FILLERS) : this.#sentence(), 'chatter');
    } else if (roll < 0.77) {
      const text = this.#pick(REPEATABLE);
      const count = intBetween(this.#random, 3, 5);
      const speakers = new Set<number>();
      while (speakers.size < count) speakers.add(this.#member(group));
      for (const userId of speakers) say(text, 'repeat', userId);
    } else if (roll < 0.83) {
      const sticker = intBetween(this.#random, 0, STICKERS - 1)
        .toString(16)
        .padStart(8, '0');
      say(
        `[CQ:image,file=${sticker}.image,url=https://gchat.qpic.cn/gchatpic_new/0/${sticker}/0,subType=1]`,
        'sticker',
      );
    } else if (roll < 0.89) {
      const quoted = group.recentIds[intBetween(this.#random, 0, Math.max(0, group.recentIds.length - 1))] ?? 1;
      say(`[CQ:reply,id=${quoted}]${this.#random() < 0.5 ? this.#pick(FILLERS) : this.#sentence()}`, 'quote');
    } else if (roll < 0.94) {
      say(`[CQ:at,qq=${this.#member(group)}] ${this.#sentence()}`, 'mention');
    } else if (roll < 0.96) {
      say(`${this.#botName} ${this.#sentence()}`, 'addressed');
    } else {
      const sentences = Array.from({ length: intBetween(this.#random, 3, 8) }, () => this.#sentence());
      say(sentences.join('，'), 'long');
    }
  }

  /** A one-off sentence: mostly new text, so it is learned but rarely answered. */
  #sentence(): string {
    return `${this.#pick(SUBJECTS)}${this.#pick(TIMES)}${this.#pick(ACTIVITIES)}${this.#pick(TAILS)}`;
  }

  #member(group: GroupState, not?: number): number {
    for (;;) {
      const member = this.#pick(group.members);
      if (member !== not) return member;
    }
  }

  #pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.#random() * items.length)] as T;
  }
}
