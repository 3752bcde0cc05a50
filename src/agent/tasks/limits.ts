/** The bounds of reminder tasks (docs/agent-tasks.md#bounds). */
export const TASKS = {
  /** Longest reminder text, in characters. */
  textMax: 200,
  /** A reminder is due at least this far ahead... */
  minAheadMs: 60_000,
  /** ...and at most this far (30 days). */
  maxAheadMs: 30 * 86_400_000,
  /** Open reminders per member in a group, and per group. */
  perMember: 5,
  perGroup: 30,
  /**
   * A reminder found due more than this late (the service was down) is not sent but marked failed
   * (reason `late`): a reminder hours after its time misleads more than it helps.
   */
  lateBoundMs: 6 * 3_600_000,
  /** The scheduler looks at the store at least this often (tasks made by another process). */
  pollMs: 15_000,
  /** Due tasks taken per pass. */
  batch: 50,
  /** Reminders listed in chat by 「我的提醒」. */
  chatListMax: 10,
} as const;
