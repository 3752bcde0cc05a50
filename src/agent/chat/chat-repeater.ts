// What the chat path needs of the repeater (src/repeater/repeater.ts): its window of recent
// lines, its bans, controls and names, `say` (recorded, so 「不可以」 bans a model's line like any
// reply) and `record` (the Why page).

import type { ChatControls } from '../../repeater/group-controls.ts';
import type { RepeaterDecision } from '../../repeater/decision.ts';
import type { WindowMessage } from '../../repeater/message-window.ts';
import type { AccountSettings } from '../../repeater/repeater-options.ts';

export interface AgentChatRepeater {
  readonly window: { recent(groupId: number, limit: number): readonly WindowMessage[] };
  readonly bans: { lists(groupId: number): { active: string[]; reserve: string[] } };
  readonly controls: ChatControls;
  nicknamesOf(selfId: number): readonly string[];
  accountOf(selfId: number): AccountSettings;
  say(
    groupId: number,
    selfId: number,
    lines: readonly { rawMessage: string; keywords: string }[],
    contextKeywords: string,
    pokeUserId: number | null,
  ): void;
  record(decision: RepeaterDecision): void;
}
