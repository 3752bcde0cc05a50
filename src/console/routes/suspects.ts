/**
 * Members proposed as bots: they answer other members' commands at once with multi-line or card
 * output (src/repeater/bot-suspects.ts; counted by this process since it started). Confirm with
 * `PUT /user-configs/{user_id}` `{bot: true}`; `{bot: false}` dismisses (a decided user is not
 * proposed again).
 */
import Type from 'typebox';
import type { ConsoleApp, RouteContext } from '../context.ts';

export function suspectRoutes(api: ConsoleApp, ctx: RouteContext): void {
  api.get(
    '/suspected-bots',
    {
      config: { members: true },
      schema: {
        tags: ['user-configs'],
        summary: 'Members that behave like command bots, proposed to be marked as bots',
        response: {
          200: Type.Array(
            Type.Object({
              user_id: Type.Integer(),
              evidence: Type.Integer({ description: 'Commands it answered at once with multi-line or card output.' }),
              group_ids: Type.Array(Type.Integer()),
              last_seen: Type.Integer({ description: 'Unix seconds of the latest evidence.' }),
              sample: Type.String({ description: 'The start of one of its answers.' }),
            }),
          ),
        },
      },
    },
    async () =>
      ctx.deps.suspectedBots().map((suspect) => ({
        user_id: suspect.userId,
        evidence: suspect.evidence,
        group_ids: [...suspect.groupIds],
        last_seen: suspect.lastSeen,
        sample: suspect.sample,
      })),
  );
}
