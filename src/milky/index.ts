/** Public surface of the Milky adapter; the composition root imports from here. */
export { parseMilkyTarget, parseMilkyTargets, type MilkyTarget } from './connect-target.ts';
export { milkyFrame, type MilkyFrame } from './events.ts';
export { milkyRequestAnswer } from './requests.ts';
export {
  MilkyAdapter,
  type MilkyAdapterEvents,
  type MilkyAdapterOptions,
  type MilkyBotStatus,
  type MilkyDropCounters,
} from './milky-adapter.ts';
export {
  cqToSegments,
  isMilkyUri,
  segmentsToCq,
  SegmentShapeError,
  UnsendableSegmentError,
  type MilkySegment,
  type ResolveImage,
} from './segments.ts';
