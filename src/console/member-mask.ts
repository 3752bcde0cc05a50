/**
 * Member numbers at the read level (docs/rules.md#console-member-numbers): a read-level answer of a
 * route that returns stored messages or members carries, instead of each member's QQ number, a
 * negative stand-in (never a QQ number), the same for the same member everywhere within one run of
 * the service, so rows still group and compare. A write-level answer carries the numbers. The
 * stand-in is a keyed hash (a key drawn at start), so it cannot be turned back into the number by
 * trying numbers. Groups and the bot's own accounts are not members and stay as they are.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Keys whose number (or list of numbers) is a member's QQ number, in answers and log fields. */
const MEMBER_KEYS: ReadonlySet<string> = new Set([
  'user_id',
  'userId',
  'user',
  'sender_id',
  'operator_id',
  'target_id',
  'invitor_id',
  'blocked_user_ids',
]);

/** A mention inside message text (CQ code): `[CQ:at,qq=123456]`; `qq=all` is no member. */
const MENTION = /(\[CQ:at,qq=)(\d+)/g;

/** The response header that says an answer's member numbers are stand-ins. */
export const MEMBERS_HEADER = 'x-chorus-members';

const KEY = randomBytes(32);

/** The stand-in of a member number: a negative integer; 0 (no member) and non-numbers stay. */
export function memberStandIn(value: number): number {
  if (!Number.isSafeInteger(value) || value <= 0) return value;
  const digest = createHmac('sha256', KEY).update(String(value)).digest();
  return -(1 + (digest.readUInt32BE(0) & 0x7fffffff));
}

const maskText = (text: string) =>
  text.replace(MENTION, (_all, head: string, qq: string) => `${head}${memberStandIn(Number(qq))}`);

/** A copy of `value` with every member number replaced by its stand-in (the value is not changed). */
export function maskMembers<T>(value: T, memberKey = false): T {
  if (typeof value === 'number') return (memberKey ? memberStandIn(value) : value) as T;
  if (typeof value === 'string') {
    if (memberKey && /^\d+$/.test(value)) return String(memberStandIn(Number(value))) as T;
    return maskText(value) as T;
  }
  if (Array.isArray(value)) return value.map((item: unknown) => maskMembers(item, memberKey)) as T;
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) copy[key] = maskMembers(inner, MEMBER_KEYS.has(key));
    return copy as T;
  }
  return value;
}

/** Whether this request's answer must hide member numbers (any session below write). */
export function hidesMembers(request: Pick<FastifyRequest, 'consoleAccess'>): boolean {
  return request.consoleAccess?.level !== 'write';
}

/**
 * The hook of a route that returns members (`config.members`), run before the envelope: at the
 * read level the payload is masked and the header says so. A cached payload is shared, so it is
 * copied, never changed.
 */
export function memberMaskHook(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
  done: (error: null, payload: unknown) => void,
): void {
  if (reply.statusCode >= 300 || !hidesMembers(request)) return done(null, payload);
  reply.header(MEMBERS_HEADER, 'masked');
  done(null, maskMembers(payload));
}
