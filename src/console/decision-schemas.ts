/** Schemas of the Why page's routes (src/console/routes/decisions.ts). */
import Type from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const DecisionsQuery = Type.Object({
  group_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Only this group (absent: every group).' })),
  q: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Only messages (or texts sent) containing this.' }),
  ),
  before: Type.Optional(Type.Integer({ minimum: 1, description: "The previous page's `next_before`." })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  scope: Type.Optional(
    Type.String({
      enum: ['kept', 'process'],
      description:
        '`kept` (default): the decisions kept in the database, one row per message. `process`: the last ones of this process in memory, every copy and own message included (needs group_id).',
    }),
  ),
  explain: Type.Optional(
    Type.Boolean({
      description: 'Also list the known answers of the newest decisions that looked the corpus up (at most 20).',
    }),
  ),
});

export const AnswerJudged = Type.Object({
  answer_keywords: Type.String(),
  group_id: Type.Integer({ description: '0: shared by the community.' }),
  count: Type.Integer(),
  sample: Type.String(),
  verdict: Type.String({
    enum: ['ready', 'below-threshold', 'banned', 'same-as-message', 'needs-more-groups'],
    description: 'The first reply rule the answer fails, judged against the corpus as it stands now.',
  }),
});

export const Cause = Type.Object(
  {
    code: Type.String({
      description:
        'What decided it: a reason, or for a lookup without a ready answer what held the best-known answer back (`below-threshold`, `banned-here`, `banned-everywhere`, `banned-elsewhere`, `said-recently`, `needs-more-groups`...). The console words it (`cause.<code>`).',
    }),
    params: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()]), {
        description: 'Its figures: answer, count, threshold, by, at (unix s), until (unix s), seconds_left, minutes...',
      }),
    ),
  },
  { title: 'DecisionCause' },
);

export const DecisionView = Type.Object(
  {
    id: Nullable(Type.Integer({ description: 'The kept row (null with scope=process); page with `before`.' })),
    at: Type.Integer({ description: 'Unix ms.' }),
    group_id: Type.Integer(),
    group_name: Nullable(Type.String({ description: "From the receiving account's group list, when known." })),
    self_id: Type.Integer(),
    user_id: Type.Integer(),
    sender_name: Type.String({ description: "The sender's group card or nickname." }),
    message_id: Type.Integer(),
    raw_message: Type.String({ description: 'The message, CQ-coded (the console renders faces and images).' }),
    outcome: Type.String({ enum: ['replied', 'skipped', 'banned'] }),
    reason: Type.String({ description: 'Why (`DecisionReason` in src/repeater/decision.ts lists every reason).' }),
    cause: Cause,
    keywords: Type.String({ description: "The message's keywords." }),
    answer_keywords: Nullable(Type.String()),
    texts: Type.Array(Type.String(), { description: 'What was sent (empty unless replied).' }),
    learn: Type.String({ description: 'What learning did with the message.' }),
    cache: Nullable(Type.String({ description: 'How the reply-bundle cache answered, when a lookup ran.' })),
    latency_ms: Type.Number(),
    threshold: Nullable(
      Type.Integer({ description: 'The answer count needed this time (drawn per lookup); null without a lookup.' }),
    ),
    answers: Type.Optional(
      Type.Array(AnswerJudged, { description: 'With explain=true: the known answers, most seen first.' }),
    ),
    explanation: Type.String({ description: 'One English sentence; the console shows its own translation.' }),
  },
  { title: 'RepeaterDecisionView' },
);

export const Decisions = Type.Object({
  group_id: Nullable(Type.Integer()),
  decisions: Type.Array(DecisionView, { description: 'Newest first.' }),
  next_before: Nullable(Type.Integer({ description: 'Pass as `before` for the next (older) page; null: no more.' })),
});

export const DecisionGroups = Type.Array(
  Type.Object({
    group_id: Type.Integer(),
    group_name: Nullable(Type.String()),
    kept: Type.Integer({ description: 'Decisions kept.' }),
    total: Type.Integer({
      description: "This process's decisions in the group since it started, every copy and own message included.",
    }),
    last_at: Type.Integer(),
    last_reason: Nullable(Type.String()),
  }),
  { description: 'The most recently active first.' },
);

export const TryBody = Type.Object(
  {
    group_id: Type.Integer({ minimum: 1 }),
    text: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'The message as a member would send it (CQ codes allowed).',
    }),
    self_id: Type.Optional(
      Type.Integer({
        minimum: 1,
        description: 'The account that would answer (absent: the one the group was last heard on).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const WeighedAnswerView = Type.Object({
  answer_keywords: Type.String(),
  sample: Type.String({ description: 'Its first learned text, CQ-coded.' }),
  group_id: Type.Integer({ description: '0: shared by the community.' }),
  count: Type.Integer(),
  origin: Type.String({ enum: ['group', 'cross-group', 'community'] }),
  verdict: Type.String({
    description:
      '`ready`, or the rule that holds it back: below-threshold, banned, said-recently, same-as-message, not-an-image, nickname, unfit, just-said-here, not-shared, mentions-someone, needs-more-groups, no-sample.',
  }),
});

export const TryResult = Type.Object({
  group_id: Type.Integer(),
  self_id: Type.Integer(),
  outcome: Type.String({ enum: ['would-reply', 'would-skip'] }),
  reason: Type.String(),
  cause: Cause,
  keywords: Type.String(),
  threshold: Nullable(Type.Integer({ description: 'The count an answer needs in the strict case of the draw.' })),
  lowest_threshold: Nullable(Type.Integer({ description: 'The lowest the draw can give.' })),
  answers: Type.Array(WeighedAnswerView, { description: 'The answers weighed, most seen first.' }),
});
