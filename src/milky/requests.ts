/**
 * Milky's friend and group requests (Milky 1.x `friend_request`, `group_join_request`,
 * `group_invited_join_request`, `group_invitation`) as the domain's ChatRequest. What the answer
 * needs (the initiator's uid, the notification or invitation seq) travels in the request's flag,
 * which the request inbox stores: `milky:<kind>:...`, so a stored request can be answered after a
 * restart, and a OneBot flag never reads as a Milky one.
 */
const PREFIX = 'milky:';

/** The Milky call answering the request whose flag is `flag`; null when it is not a Milky flag. */
export function milkyRequestAnswer(
  flag: string,
  approve: boolean,
): { action: string; params: Record<string, unknown> } | null {
  if (!flag.startsWith(PREFIX)) return null;
  const [kind, ...rest] = flag.slice(PREFIX.length).split(':');
  const verb = approve ? 'accept' : 'reject';
  const int = (value: string | undefined) => (value !== undefined && /^\d+$/.test(value) ? Number(value) : null);
  switch (kind) {
    case 'friend': {
      // `friend:<filtered 0|1>:<initiator_uid>` (a uid may itself hold colons: it is the rest).
      const [filtered, ...uid] = rest;
      if (uid.length === 0 || uid.join(':') === '') return null;
      return {
        action: `${verb}_friend_request`,
        params: { initiator_uid: uid.join(':'), is_filtered: filtered === '1' },
      };
    }
    case 'join_request':
    case 'invited_join_request': {
      // `<type>:<group_id>:<notification_seq>:<filtered 0|1>`
      const groupId = int(rest[0]);
      const seq = int(rest[1]);
      if (groupId === null || seq === null) return null;
      return {
        action: `${verb}_group_request`,
        params: { notification_seq: seq, notification_type: kind, group_id: groupId, is_filtered: rest[2] === '1' },
      };
    }
    case 'invitation': {
      // `invitation:<group_id>:<invitation_seq>`
      const groupId = int(rest[0]);
      const seq = int(rest[1]);
      if (groupId === null || seq === null) return null;
      return { action: `${verb}_group_invitation`, params: { group_id: groupId, invitation_seq: seq } };
    }
    default:
      return null;
  }
}

export const friendRequestFlag = (initiatorUid: string, filtered: boolean): string =>
  `${PREFIX}friend:${filtered ? 1 : 0}:${initiatorUid}`;

export const groupRequestFlag = (
  type: 'join_request' | 'invited_join_request',
  groupId: number,
  notificationSeq: number,
  filtered: boolean,
): string => `${PREFIX}${type}:${groupId}:${notificationSeq}:${filtered ? 1 : 0}`;

export const invitationFlag = (groupId: number, invitationSeq: number): string =>
  `${PREFIX}invitation:${groupId}:${invitationSeq}`;
