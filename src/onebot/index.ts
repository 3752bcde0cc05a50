/** Public surface of the OneBot v11 adapter; the composition root imports from here. */
export type { ClientRole } from './connection.ts';
export {
  escapeParam,
  escapeText,
  mentions,
  normaliseForStorage,
  parseCq,
  plainTextOf,
  renderCq,
  replyIdOf,
  unescapeParam,
  unescapeText,
  type Segment,
} from './cq-code.ts';
export { ActionFailedError, ActionTimeoutError, NotConnectedError, OneBotActionError } from './errors.ts';
export { parseFrame, storedMessageText, type FrameProblem, type OneBotFrame } from './events.ts';
export { ONEBOT_MAX_FRAME_BYTES, ONEBOT_WS_PATH } from './limits.ts';
export {
  OneBotServer,
  type BotConnected,
  type BotDisconnected,
  type BotStatus,
  type MessageMeta,
  type OneBotServerEvents,
  type OneBotServerOptions,
} from './onebot-server.ts';
