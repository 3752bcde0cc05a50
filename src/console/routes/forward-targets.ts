/**
 * Forward WebSocket targets (the bots page): the OneBot servers this process dials, with each
 * one's state, and adding or removing one. A change is saved as the console setting
 * `CHORUS_ONEBOT_CONNECT` (like any console-set setting: data/console-settings.json, then the
 * configuration reactions apply it). Addresses are shown with their token masked; the token
 * itself never leaves the process. Refusals carry a code the web words (`errors.forward_*`).
 */
import Type from 'typebox';
import { checkForwardUrl } from '../../config/index.ts';
import { recordConsole } from '../activity.ts';
import { ONEBOT_CONNECT_PAGE } from '../config-pages.ts';
import { savePage } from '../config-save.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import type { ForwardTargetsPort } from '../deps.ts';
import { CodedError } from '../errors.ts';
import { StepReport } from '../schemas.ts';

const Nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const ForwardTarget = Type.Object({
  id: Type.String({ description: 'Stable while the process runs; reveals nothing of the address.' }),
  url: Type.String({ description: 'The address with its access_token masked as ***.' }),
  direction: Type.Literal('forward'),
  state: Type.Union([Type.Literal('connecting'), Type.Literal('connected'), Type.Literal('waiting')], {
    description: 'connecting: dialling or waiting for the account number; waiting: to retry at next_attempt_at.',
  }),
  self_id: Nullable(Type.Integer({ description: 'The account on the other side, once known.' })),
  failures: Type.Integer({ description: 'Failed attempts in a row (0 once connected).' }),
  connected_at: Nullable(Type.Integer({ description: 'Unix ms.' })),
  next_attempt_at: Nullable(Type.Integer({ description: 'Unix ms, while waiting.' })),
  last_error: Nullable(
    Type.Object(
      {
        code: Type.String({
          description:
            'network {errno}, unauthorized {status}, http_status {status}, timeout, no_self_id, closed {code}, replaced',
        }),
        params: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()])),
        at: Type.Integer({ description: 'Unix ms.' }),
      },
      { description: 'Why the last attempt failed or the last connection ended.' },
    ),
  ),
});

const AddBody = Type.Object(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'ws:// or wss:// address of the implementation, its token in ?access_token=.',
    }),
  },
  { additionalProperties: false },
);

const Changed = Type.Object({
  targets: Type.Array(ForwardTarget),
  steps: Type.Array(StepReport, { description: 'What the save did, in order.' }),
});

function view(port: ForwardTargetsPort | undefined) {
  return (port?.targets() ?? []).map((target) => ({
    id: target.id,
    url: target.url,
    direction: 'forward' as const,
    state: target.state,
    self_id: target.selfId,
    failures: target.failures,
    connected_at: target.connectedAt,
    next_attempt_at: target.nextAttemptAt,
    last_error: target.lastError ? { ...target.lastError, params: { ...target.lastError.params } } : null,
  }));
}

export function forwardTargetRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;
  const configured = (): readonly string[] => deps.settings.current().onebot.connect;
  const save = async (request: Parameters<typeof recordConsole>[1], next: readonly string[], what: string) => {
    const steps = await savePage(ONEBOT_CONNECT_PAGE, { connect: [...next] }, deps.settings, deps.reactions);
    deps.logger.info({ page: 'onebot', set: ['connect'], targets: next.length }, `forward target ${what}`);
    await recordConsole(deps, request, {
      kind: 'settings_save',
      groupId: null,
      params: { section: 'onebot', keys: 'connect' },
    });
    return { targets: view(deps.forwardTargets), steps };
  };

  api.get(
    '/onebot/forward-targets',
    {
      schema: {
        tags: ['onebot'],
        summary: 'Forward WebSocket targets this process dials, with their state',
        response: { 200: Type.Array(ForwardTarget) },
      },
    },
    async () => view(deps.forwardTargets),
  );

  api.post(
    '/onebot/forward-targets',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['onebot'],
        summary: 'Add a forward WebSocket target (saved as a console setting and dialled at once)',
        body: AddBody,
        response: { 200: Changed },
      },
    },
    async (request) => {
      // The problem never repeats the address (it may hold a token); a duplicate is compared in
      // the canonical form the setting stores.
      const checked = checkForwardUrl(request.body.url.trim());
      if (!checked.ok) throw new CodedError(400, 'forward_url_invalid', {}, `url: ${checked.problem}`);
      if (configured().includes(checked.value)) {
        throw new CodedError(409, 'forward_target_exists', {}, 'url: this target is already configured');
      }
      return save(request, [...configured(), checked.value], 'added');
    },
  );

  api.delete(
    '/onebot/forward-targets/:id',
    {
      config: { auth: 'write' },
      schema: {
        tags: ['onebot'],
        summary: 'Remove a forward WebSocket target (its connection is closed)',
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Changed },
      },
    },
    async (request) => {
      const port = deps.forwardTargets;
      const href = configured().find((each) => port?.idOf(each) === request.params.id);
      if (href === undefined) {
        throw new CodedError(404, 'forward_target_unknown', {}, `no forward target ${request.params.id}`);
      }
      return save(
        request,
        configured().filter((each) => each !== href),
        'removed',
      );
    },
  );
}
