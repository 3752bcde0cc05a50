/** The console's moderation actions and their log entries (moderation-store.ts). */
export type ModerationAction = 'ban_group' | 'ban_all' | 'delete_answer' | 'delete_context';

export interface ModerationEntry {
  id: number;
  time: number;
  actor: string;
  action: ModerationAction;
  contextId: number;
  contextKeywords: string;
  answerKeywords: string;
  groupId: number;
  undoneAt: number;
  undoneBy: string;
}

/** Why an action or undo could not run (the console answers 404 or 409 with it). */
export class ModerationError extends Error {
  constructor(
    readonly reason: 'not_found' | 'conflict',
    message: string,
  ) {
    super(message);
  }
}
