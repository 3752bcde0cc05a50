/**
 * The demo's bundled conversation: short exchanges of the kind a QQ group has every day, written
 * by the team. Each exchange is a few lines by different members; the replay repeats exchanges
 * across three groups and days with small variations, so Chorus sees the same phrase pairs often
 * enough to learn them and to answer.
 */
export interface Exchange {
  /** Lines in order; each is said by the next member of the group. */
  lines: string[];
  /** How many times the exchange recurs over the replay. */
  weight: number;
}

export const EXCHANGES: Exchange[] = [
  { lines: ['早上好', '早安'], weight: 5 },
  { lines: ['晚安', '好梦'], weight: 5 },
  { lines: ['吃饭了吗', '还没呢', '一起点外卖吧'], weight: 3 },
  { lines: ['中午吃什么', '黄焖鸡'], weight: 3 },
  { lines: ['下班了', '辛苦了'], weight: 4 },
  { lines: ['有人打游戏吗', '来了来了', '等我五分钟'], weight: 3 },
  { lines: ['今天天气真好', '适合出去走走'], weight: 3 },
  { lines: ['外面下雨了', '记得带伞'], weight: 3 },
  { lines: ['有人在吗', '在的'], weight: 3 },
  { lines: ['这个好好笑', '笑死我了'], weight: 3 },
  { lines: ['周五了', '终于周五了'], weight: 3 },
  { lines: ['奶茶喝吗', '三分糖去冰'], weight: 3 },
  { lines: ['猫咪好可爱', '想撸猫'], weight: 2 },
  { lines: ['今天加班', '抱抱'], weight: 2 },
  { lines: ['晚上吃火锅', '带我一个'], weight: 2 },
];

/** The three demo groups and their members (QQ numbers are made up). */
export const GROUPS = [
  { groupId: 700001, name: '摸鱼小分队', members: [910001, 910002, 910003, 910004, 910005] },
  { groupId: 700002, name: '游戏开黑群', members: [920001, 920002, 920003, 920004] },
  { groupId: 700003, name: '吃货联盟', members: [930001, 930002, 930003, 930004, 930005, 930006] },
];

/** Small talk between exchanges, so pairs are not always back to back. */
export const FILLER = ['嗯嗯', '好的', '我也是', '真的假的', '行吧'];
