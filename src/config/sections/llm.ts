/**
 * Talking with a language model (docs/agent.md): where the OpenAI-compatible provider is, which
 * model answers, and the bounds of every call. No base URL: the whole feature is off and nothing
 * is built. Read per call, so a save applies to the next call.
 */
import { field, parsedBad, parsedOk, type Parsed } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const provider = 'Model provider';
const bounds = 'Model bounds';

/** '' (off) or an http(s) URL without credentials, e.g. http://127.0.0.1:11434/v1. */
export function checkModelBaseUrl(text: string): Parsed<string> {
  const value = text.trim();
  if (value === '') return parsedOk('');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return parsedBad('expected an http(s) URL such as https://api.openai.com/v1, or blank for off');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return parsedBad('expected an http:// or https:// URL');
  if (url.username !== '' || url.password !== '') return parsedBad('put the key in CHORUS_LLM_API_KEY, not in the URL');
  return parsedOk(value.replace(/\/+$/, ''));
}

export const llmSection = defineSection({
  id: 'llm',
  title: 'Language model',
  prefix: 'CHORUS_LLM_',
  fields: [
    field.string({
      env: 'CHORUS_LLM_BASE_URL',
      default: '',
      check: checkModelBaseUrl,
      group: provider,
      description:
        'OpenAI-compatible Chat Completions base URL (OpenAI, DeepSeek, Qwen, vLLM, Ollama http://127.0.0.1:11434/v1); blank: no model, the feature is off.',
    }),
    field.string({
      env: 'CHORUS_LLM_API_KEY',
      default: '',
      secret: true,
      group: provider,
      description: 'API key sent as a Bearer token to the provider; blank for a local model that needs none.',
    }),
    field.string({
      env: 'CHORUS_LLM_MODEL',
      default: 'gpt-4o-mini',
      group: provider,
      description: 'Model that answers members when the bot is addressed.',
    }),
    field.string({
      env: 'CHORUS_LLM_BACKGROUND_MODEL',
      default: '',
      group: provider,
      description: 'Model for background work (facts, catchphrases); blank: the chat model.',
    }),
    field.float({
      env: 'CHORUS_LLM_TEMPERATURE',
      default: 0.8,
      min: 0,
      max: 2,
      group: provider,
      description: 'Sampling temperature of chat answers.',
    }),
    field.int({
      env: 'CHORUS_LLM_TIMEOUT_SEC',
      default: 20,
      min: 1,
      max: 300,
      group: bounds,
      description: 'Reply deadline: a call not answered within it is given up and the bot says nothing.',
    }),
    field.int({
      env: 'CHORUS_LLM_CONCURRENCY',
      default: 4,
      min: 1,
      max: 64,
      group: bounds,
      description: 'Calls under way at once at most; an addressed message beyond it gets no model answer.',
    }),
    field.int({
      env: 'CHORUS_LLM_GROUP_DAILY_CALLS',
      default: 200,
      min: 0,
      max: 1_000_000,
      group: bounds,
      description: 'Model calls per group per day (local time); 0: no limit.',
    }),
    field.int({
      env: 'CHORUS_LLM_GROUP_DAILY_TOKENS',
      default: 200_000,
      min: 0,
      max: 1_000_000_000,
      group: bounds,
      description: 'Tokens (prompt and answer) per group per day; 0: no limit.',
    }),
    field.int({
      env: 'CHORUS_LLM_MEMBER_DAILY_CALLS',
      default: 30,
      min: 0,
      max: 1_000_000,
      group: bounds,
      description: 'Model calls one member may cause per day; 0: no limit.',
    }),
    field.int({
      env: 'CHORUS_LLM_MEMBER_DAILY_TOKENS',
      default: 30_000,
      min: 0,
      max: 1_000_000_000,
      group: bounds,
      description: 'Tokens one member may cause per day; 0: no limit.',
    }),
    field.string({
      env: 'CHORUS_LLM_UNAVAILABLE_LINE',
      default: '',
      group: bounds,
      description: 'What the bot says when over budget or the model is down; blank: it stays silent.',
    }),
    field.float({
      env: 'CHORUS_LLM_SILENCE_RATE',
      default: 0.02,
      min: 0,
      max: 1,
      group: bounds,
      description:
        'In groups set to "also in place of silence": the chance that a message the corpus has no answer for gets a model answer.',
    }),
  ],
});

export type LlmConfig = SectionValues<typeof llmSection>;
