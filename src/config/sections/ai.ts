/**
 * The AI extension: where Chorus clones its managed checkout of the AI service from, where the
 * AI service listens and the Bearer token both sides share. Host, port and token are also kept in
 * step with `data/ai_extension.json` when the console saves it.
 */
import { field, parsedBad, parsedOk, type Parsed } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'AI extension';

/** The upstream of the AI service, the origin's Pallas-Bot-AI. */
export const DEFAULT_AI_REPO_URL = 'https://github.com/PallasBot/Pallas-Bot-AI.git';

/**
 * What `git clone` accepts as a source: a URL, scp-like `user@host:path` or a local path. A leading
 * `-` would be read as an option, and whitespace is never part of a repository address.
 */
export function checkRepoUrl(text: string): Parsed<string> {
  const url = text.trim();
  if (url === '') return parsedOk(DEFAULT_AI_REPO_URL);
  if (url.startsWith('-') || /\s/.test(url)) {
    return parsedBad('expected a git repository URL or path (no spaces, not starting with "-")');
  }
  return parsedOk(url);
}

/** A host name or address without scheme, port or path; blank means the default. */
export function checkAiHost(text: string): Parsed<string> {
  const host = text.trim().replace(/^\[(.*)\]$/, '$1');
  if (host === '') return parsedOk('127.0.0.1');
  if (/[\s/?#@]/.test(host) || host.includes('://')) return parsedBad('expected a host name or IP address');
  return parsedOk(host);
}

export const aiSection = defineSection({
  id: 'ai',
  title: 'AI extension',
  prefix: 'CHORUS_AI_',
  fields: [
    field.string({
      env: 'CHORUS_AI_REPO_URL',
      default: DEFAULT_AI_REPO_URL,
      check: checkRepoUrl,
      group,
      description: 'Git repository the managed AI checkout (data/runtimes/ai) is cloned from.',
    }),
    field.string({
      env: 'CHORUS_AI_SERVER_HOST',
      default: '127.0.0.1',
      check: checkAiHost,
      group,
      description:
        'Host of the AI service; a host other than loopback means it runs elsewhere and the console never installs it.',
    }),
    field.int({
      env: 'CHORUS_AI_SERVER_PORT',
      default: 9099,
      min: 1,
      max: 65535,
      group,
      description: 'Port of the AI service.',
    }),
    field.string({
      env: 'CHORUS_AI_API_TOKEN',
      default: '',
      secret: true,
      group,
      description:
        'Bearer token the AI service requires on its ops routes; handed to the managed runtime when it is bootstrapped.',
    }),
  ],
});

export type AiConfig = SectionValues<typeof aiSection>;
