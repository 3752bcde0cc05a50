import type { Context, LearnInput } from './corpus.ts';

/** The group id every community upload carries: no group or user number leaves the deployment. */
export const COMMUNITY_GROUP_ID = 0;

/** A context as the community may see it: every answer's group set to 0. */
export function communityContext(context: Context): Context {
  return {
    ...context,
    answers: context.answers.map((answer) => ({
      ...answer,
      groupId: COMMUNITY_GROUP_ID,
      messages: [...answer.messages],
    })),
    bans: [],
  };
}

/** A learn event as the community may see it: group 0. */
export function communityLearnInput(input: LearnInput): LearnInput {
  return { ...input, groupId: COMMUNITY_GROUP_ID };
}
