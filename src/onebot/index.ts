/** Public surface of the OneBot v11 adapter; the composition root imports from here. */
export type { ClientRole, ConnectionDirection } from './connection.ts';
export {
  ForwardDialer,
  type ForwardError,
  type ForwardState,
  type ForwardTargetStatus,
  type SocketAdopter,
} from './forward-dialer.ts';
export {
  escapeParam,
  escapeText,
  mentions,
  parseCq,
  plainTextOf,
  renderCq,
  replyIdOf,
  unescapeParam,
  unescapeText,
  type Segment,
} from './cq-code.ts';
export { ActionFailedError, ActionTimeoutError, NotConnectedError, OneBotActionError } from './errors.ts';
export { normaliseForStorage, picturesOf } from './stored-form.ts';
export { imageIdentity, identityOfUrl, storedImageData, type PictureSource } from './image-identity.ts';
export { MediaCache, type MediaCacheCounters, type MediaCacheLimits } from './media-cache.ts';
export { isMediaRefusal, MediaSendError, PictureKeepingChat, type MediaSendCounters } from './media-send.ts';
export { parseFrame, storedMessageText, type FrameProblem, type OneBotFrame } from './events.ts';
export type { FrameRate } from './frame-budget.ts';
export {
  LIVENESS_DEFAULTS,
  LivenessWatch,
  livenessFailureText,
  type LivenessFailure,
  type LivenessSettings,
  type LivenessView,
  type PingableSocket,
} from './liveness.ts';
export {
  ONEBOT_FRAME_RATE,
  ONEBOT_MAX_FRAME_BYTES,
  ONEBOT_MESSAGE_MAX_CHARS,
  ONEBOT_MESSAGE_MAX_RAW_CHARS,
  ONEBOT_MESSAGE_MAX_SEGMENTS,
  ONEBOT_WS_PATH,
  ONEBOT_WS_PATHS,
} from './limits.ts';
export {
  OneBotServer,
  type BotConnected,
  type BotDisconnected,
  type BotStatus,
  type MessageMeta,
  type OneBotDropCounters,
  type OneBotServerEvents,
  type OneBotServerOptions,
} from './onebot-server.ts';
