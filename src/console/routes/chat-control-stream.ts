/**
 * The group and user controls as they change, as server-sent events (GET /chat-controls/stream):
 * the 群组 page follows a 「闭嘴」 said in chat, a save in another console or in another process on
 * the same database without a reload (docs/guide/groups.md#the-groups-page). Each event carries the whole
 * config as it now is, so the page applies it without reading it back. A client that reads slowly
 * gets only the latest state of each group or user it has not read yet: the waiting changes are
 * kept by key, so they never grow past the number of groups and users that changed.
 */
import Type from 'typebox';
import type { ChatControlChange } from '../../domain/chat-controls.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import { unavailable } from '../errors.ts';
import { hidesMembers, maskMembers } from '../member-mask.ts';
import { eventStream } from '../job-schemas.ts';
import { openEventStream } from '../sse/route.ts';
import type { SseStream } from '../sse/sse-stream.ts';
import { GroupConfigSchema, groupPayload, UserConfigSchema, userPayload } from './chat-controls.ts';

/** A heartbeat when idle (proxies keep the stream open); the browser reconnects after 2 s. */
const TIMING = { heartbeatMs: 15_000, retryMs: 2000 } as const;

const ControlStreamEvent = Type.Object({
  type: Type.Union([Type.Literal('ready'), Type.Literal('group'), Type.Literal('user')], {
    description: '`ready` first (read the lists now: later changes follow as events), then one per change.',
  }),
  group: Type.Optional(GroupConfigSchema),
  user: Type.Optional(UserConfigSchema),
});

type Subscribe = (listener: (change: ChatControlChange) => void) => () => void;

export function chatControlStreamRoutes(api: ConsoleApp, ctx: RouteContext): void {
  api.get(
    '/chat-controls/stream',
    {
      config: { envelope: false },
      schema: {
        tags: ['group-configs'],
        summary: 'Group and user control changes as server-sent events (chat commands, other consoles and processes)',
        description:
          'A `ready` event, then a `group` event with the group config (as GET /group-configs/{group_id}) or a ' +
          '`user` event with the user config after each change, wherever it was made. Nothing is replayed on a ' +
          'reconnect: read the lists again after each `ready`. A `: heartbeat` comment goes out when idle.',
        response: { 200: eventStream(ControlStreamEvent, 'text/event-stream of ControlStreamEvent JSON') },
      },
    },
    (request, reply) => {
      const subscribe = ctx.deps.controlChanges;
      if (!subscribe) throw unavailable('controls_stream_elsewhere', {}, 'control changes are not followed here');
      // A read session sees member numbers as stand-ins, as on GET /user-configs (docs/rules.md#console-member-numbers).
      const shown = hidesMembers(request) ? maskMembers : <T>(value: T): T => value;
      return openEventStream(ctx, request, reply, TIMING, (sse) => streamControls(sse, subscribe, shown));
    },
  );
}

async function streamControls(sse: SseStream, subscribe: Subscribe, shown: <T>(value: T) => T): Promise<void> {
  const waiting = new Map<string, ChatControlChange>();
  let wake: (() => void) | null = null;
  const unsubscribe = subscribe((change) => {
    const key = change.kind === 'group' ? `g${change.config.groupId}` : `u${change.config.userId}`;
    waiting.delete(key);
    waiting.set(key, change);
    wake?.();
  });
  const offClose = sse.onClose(() => wake?.());
  try {
    if (!(await sse.send({ data: { type: 'ready' } }))) return;
    while (!sse.closed) {
      for (const [key, change] of waiting) {
        waiting.delete(key);
        const data =
          change.kind === 'group'
            ? { type: 'group', group: groupPayload(change.config) }
            : { type: 'user', user: userPayload(change.config) };
        if (!(await sse.send({ data: shown(data) }))) return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (sse.closed || waiting.size > 0) resolve();
      });
      wake = null;
    }
  } finally {
    unsubscribe();
    offClose();
  }
}
