// The daily budgets of model calls (docs/agent.md#bounds): calls and tokens per group and per
// member, counted in memory from the day's start (seeded from the ledger at start-up) and checked
// before a call, so a spent budget costs no request at all.

export interface BudgetLimits {
  /** 0: no limit. */
  readonly groupCalls: number;
  readonly groupTokens: number;
  readonly memberCalls: number;
  readonly memberTokens: number;
}

/** Which budget is spent, for the Why page and the ledger. */
export interface BudgetSpent {
  readonly scope: 'group' | 'member';
  readonly kind: 'calls' | 'tokens';
  readonly limit: number;
}

interface Spent {
  calls: number;
  tokens: number;
}

export class DailyBudget {
  #day = '';
  readonly #groups = new Map<number, Spent>();
  readonly #members = new Map<number, Spent>();

  /** `dayOf` names the local day of a moment (the budgets start again each day). */
  constructor(private readonly dayOf: (ms: number) => string) {}

  /** Adds what the ledger holds for today (start-up), once, before any call is counted. */
  seed(nowMs: number, totals: { byGroup: ReadonlyMap<number, Spent>; byMember: ReadonlyMap<number, Spent> }): void {
    this.#roll(nowMs);
    for (const [id, spent] of totals.byGroup) this.#add(this.#groups, id, spent.calls, spent.tokens);
    for (const [id, spent] of totals.byMember) this.#add(this.#members, id, spent.calls, spent.tokens);
  }

  /** The first spent budget of the group or the member, or null. */
  check(nowMs: number, groupId: number, userId: number, limits: BudgetLimits): BudgetSpent | null {
    this.#roll(nowMs);
    const group = this.#groups.get(groupId) ?? { calls: 0, tokens: 0 };
    const member = this.#members.get(userId) ?? { calls: 0, tokens: 0 };
    const over = (used: number, limit: number) => limit > 0 && used >= limit;
    if (over(group.calls, limits.groupCalls)) return { scope: 'group', kind: 'calls', limit: limits.groupCalls };
    if (over(group.tokens, limits.groupTokens)) return { scope: 'group', kind: 'tokens', limit: limits.groupTokens };
    if (over(member.calls, limits.memberCalls)) return { scope: 'member', kind: 'calls', limit: limits.memberCalls };
    if (over(member.tokens, limits.memberTokens))
      return { scope: 'member', kind: 'tokens', limit: limits.memberTokens };
    return null;
  }

  /** One call made (whatever its outcome: the provider may bill a failed one too). */
  charge(nowMs: number, groupId: number, userId: number, tokens: number): void {
    this.#roll(nowMs);
    this.#add(this.#groups, groupId, 1, tokens);
    if (userId !== 0) this.#add(this.#members, userId, 1, tokens);
  }

  /** Today's totals of every group (the overview). */
  today(nowMs: number): { calls: number; tokens: number } {
    this.#roll(nowMs);
    let calls = 0;
    let tokens = 0;
    for (const spent of this.#groups.values()) {
      calls += spent.calls;
      tokens += spent.tokens;
    }
    return { calls, tokens };
  }

  #roll(nowMs: number): void {
    const day = this.dayOf(nowMs);
    if (day === this.#day) return;
    this.#day = day;
    this.#groups.clear();
    this.#members.clear();
  }

  #add(map: Map<number, Spent>, id: number, calls: number, tokens: number): void {
    const spent = map.get(id) ?? { calls: 0, tokens: 0 };
    spent.calls += calls;
    spent.tokens += tokens;
    map.set(id, spent);
  }
}
