/**
 * Why a OneBot action did not succeed. `ChatActions` callers catch `OneBotActionError` for any of
 * them, or a subclass to tell a refusal from silence from a missing account.
 */
export class OneBotActionError extends Error {
  override readonly name: string = 'OneBotActionError';
  constructor(
    readonly action: string,
    message: string,
  ) {
    super(message);
  }
}

/** The implementation answered `status: failed` (or its answer made no sense). */
export class ActionFailedError extends OneBotActionError {
  override readonly name = 'ActionFailedError';
  constructor(
    action: string,
    /** The implementation's retcode; -1 when its answer lacked what the action must return. */
    readonly retcode: number,
    /** The implementation's explanation (`wording` or `message`), possibly empty. */
    readonly detail: string,
  ) {
    super(action, `OneBot action ${action} failed (retcode ${retcode})${detail ? `: ${detail}` : ''}`);
  }
}

/** No answer within the action timeout; the action may still have happened. */
export class ActionTimeoutError extends OneBotActionError {
  override readonly name = 'ActionTimeoutError';
  constructor(
    action: string,
    readonly timeoutMs: number,
  ) {
    super(action, `OneBot action ${action} got no answer within ${timeoutMs} ms`);
  }
}

/** The account has no connection that takes actions, or it closed before answering. */
export class NotConnectedError extends OneBotActionError {
  override readonly name = 'NotConnectedError';
  constructor(
    action: string,
    readonly selfId: number,
    reason: 'no connection' | 'connection closed',
  ) {
    super(action, `OneBot action ${action} for ${selfId}: ${reason}`);
  }
}
