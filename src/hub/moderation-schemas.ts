/**
 * Bodies of the report/withdrawn protocol and of the operator's admin API (docs/hub.md#moderation).
 * Answers are named by their context keywords and answer keywords only: nothing of a group or a
 * member is asked for or kept.
 */
import Type, { type Static } from 'typebox';
import { DeploymentId } from './schemas.ts';

export const AnswerBody = Type.Object(
  { keywords: Type.String({ minLength: 1 }), answer_keywords: Type.String({ minLength: 1 }) },
  { additionalProperties: true },
);
export type AnswerBody = Static<typeof AnswerBody>;

export const ReportResponse = Type.Object({
  ok: Type.Literal(true),
  reports: Type.Integer(),
  withdrawn: Type.Boolean(),
});

export const WithdrawnQuery = Type.Object({
  since: Type.Integer({ minimum: 0 }),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});

export const WithdrawnResponse = Type.Object({
  as_of: Type.Integer(),
  items: Type.Array(
    Type.Object({
      keywords: Type.String(),
      answer_keywords: Type.String(),
      reason: Type.Union([Type.Literal('reports'), Type.Literal('moderator')]),
      withdrawn_at: Type.Integer(),
    }),
  ),
});

export const SearchQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
});

export const DeploymentsQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 64 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
});

export const DeploymentParams = Type.Object({ id: DeploymentId });

export const ChangeResponse = Type.Object({ ok: Type.Literal(true), changed: Type.Boolean() });

export const BlockResponse = Type.Object({
  ok: Type.Literal(true),
  deployment_id: Type.String(),
  blocked: Type.Boolean(),
});

export const AuditQuery = Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })) });
