/**
 * The group's own voice (docs/agent-catchphrases.md): catchphrases mined from each group's corpus
 * are proposed in the console and given to the model only once approved. The community's answers
 * (group 0 in the local corpus) are mined too only when the operator chooses so.
 */
import { field } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'Catchphrases';

export const agentCatchphrasesSection = defineSection({
  id: 'agent_catchphrases',
  title: 'Catchphrases',
  prefix: 'CHORUS_AGENT_CATCHPHRASES_',
  fields: [
    field.bool({
      env: 'CHORUS_AGENT_CATCHPHRASES_SHARED',
      default: false,
      group,
      description:
        "Also propose the community's shared answers said after the group's phrases as catchphrases (they still need approval).",
    }),
  ],
});

export type AgentCatchphrasesConfig = SectionValues<typeof agentCatchphrasesSection>;
