/**
 * A group message's fingerprint for the fleet claim (docs/rules.md#fleet-claims): the same for
 * every account that receives the message, in any process. QQ gives each receiving account its
 * own message id, so the id cannot serve; the group, the sender, the message's time (the
 * platform's send time in seconds, the same for every receiver) and a hash of the text can. The
 * text is normalised as for the in-process duplicate check (picture URLs differ per account).
 */
import { createHash } from 'node:crypto';
import type { GroupChatMessage } from '../domain/chat.ts';
import { normaliseRaw } from './cq-text.ts';

/**
 * `won`: this process takes the message; `lost`: another process took it; `unsure`: the claim
 * store failed or was slow, and the message is handled here (src/repeater/fleet-claims.ts says why).
 */
export type ClaimVerdict = 'won' | 'lost' | 'unsure';

export function claimKey(message: Pick<GroupChatMessage, 'groupId' | 'userId' | 'time' | 'rawMessage'>): string {
  const hash = createHash('sha1').update(normaliseRaw(message.rawMessage)).digest('base64url');
  return `${message.groupId}|${message.userId}|${message.time}|${hash}`;
}
