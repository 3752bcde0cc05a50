/**
 * URLs derived from the community-statistics endpoint (docs/rules.md#enroll): the configured value is
 * the hub's heartbeat URL (`/heartbeat` appended when missing); the corpus enrollment URL and the
 * community API base sit beside it. '' means no hub: nothing is derived.
 */
export interface HubEndpoints {
  /** POST target of the heartbeat, e.g. http://127.0.0.1:8099/v1/heartbeat. */
  heartbeat: string;
  /** POST target of the corpus enrollment: `/heartbeat` replaced by `/corpus/enroll`. */
  enroll: string;
  /** The derived community API base: `/heartbeat` replaced by `/corpus`. */
  apiBase: string;
}

const HEARTBEAT_SUFFIX = '/heartbeat';

export function hubEndpoints(endpoint: string): HubEndpoints | null {
  const url = endpoint.trim().replace(/\/+$/, '');
  if (url === '' || !/^https?:\/\//i.test(url)) return null;
  const base = url.endsWith(HEARTBEAT_SUFFIX) ? url.slice(0, -HEARTBEAT_SUFFIX.length) : url;
  return { heartbeat: `${base}${HEARTBEAT_SUFFIX}`, enroll: `${base}/corpus/enroll`, apiBase: `${base}/corpus` };
}

/** A base as stored and compared: trimmed, without trailing slashes. */
export function normaliseBase(base: string): string {
  return base.trim().replace(/\/+$/, '');
}
