/**
 * Saving the extension config: the request replaces the config (fields it leaves out get their
 * defaults) except the token, which is a secret the console never shows: left out or "" keeps
 * the stored token, null clears it. After the save, the AI server host and port settings are set
 * from the base URL and the AI token setting from the token, so the install status, the write-back
 * and a bootstrapped runtime agree with what the console talks to. A config without a token never
 * writes an empty token setting: one set in the environment, .env or chorus.toml stays in effect
 * (docs/rules.md#secret-keep).
 */
import { ValidationError, errorMessage } from '../../common/errors.ts';
import { normaliseAiConfig, normaliseBaseUrl, type AiExtensionConfig } from './config-file.ts';
import { endpointOf, type AiEndpoint } from './endpoint.ts';
import type { ConfigSource } from '../../config/index.ts';
import type { AiSettings } from './settings.ts';

export type ConfigInput = Partial<Omit<AiExtensionConfig, 'token'>> & { base_url: string; token?: string | null };

/** The config as the console shows it: the token never leaves, only whether one is set. */
export type PublicAiConfig = AiExtensionConfig & { token_set: boolean };

export function publicConfig(config: AiExtensionConfig): PublicAiConfig {
  return { ...config, token: '', token_set: config.token !== '' };
}

export function mergeInput(stored: AiExtensionConfig, input: ConfigInput): AiExtensionConfig {
  if (normaliseBaseUrl(input.base_url) === null) {
    throw new ValidationError(
      'base_url',
      'body.base_url: expected an http:// or https:// URL such as http://127.0.0.1:9099',
    );
  }
  const token =
    input.token === null ? '' : input.token === undefined || input.token === '' ? stored.token : input.token;
  return normaliseAiConfig({ ...input, token });
}

/** Where the token Chorus sends to the AI service comes from; `none` when there is none. */
export type TokenSource = Exclude<ConfigSource, 'default'> | 'none';
export const TOKEN_SOURCES = ['console', 'dotenv', 'toml', 'env', 'none'] as const satisfies readonly TokenSource[];

export interface SyncOutcome {
  server: AiEndpoint & { changed: boolean };
  tokenChanged: boolean;
  tokenSource: TokenSource;
  error: string | null;
}

/**
 * The token for requests to the AI service: the extension config's, else the CHORUS_AI_API_TOKEN
 * setting's (set in the environment, .env or chorus.toml without ever being saved in the console).
 */
export function effectiveToken(settings: AiSettings, config: AiExtensionConfig): string {
  return config.token !== '' ? config.token : settings.current().ai.apiToken;
}

function tokenSourceOf(settings: AiSettings, config: AiExtensionConfig): TokenSource {
  if (config.token !== '') return 'console';
  const snapshot = settings.current();
  const source = snapshot.sourceOf('CHORUS_AI_API_TOKEN');
  return source === 'default' || snapshot.ai.apiToken === '' ? 'none' : source;
}

export async function syncSettings(settings: AiSettings, config: AiExtensionConfig): Promise<SyncOutcome> {
  const endpoint = endpointOf(config.base_url) as AiEndpoint;
  const snapshot = settings.current();
  const tokenBefore = snapshot.ai.apiToken;
  const values: Record<string, unknown> = {};
  if (snapshot.ai.serverHost !== endpoint.host) values.CHORUS_AI_SERVER_HOST = endpoint.host;
  if (snapshot.ai.serverPort !== endpoint.port) values.CHORUS_AI_SERVER_PORT = endpoint.port;
  if (config.token !== '') {
    if (tokenBefore !== config.token) values.CHORUS_AI_API_TOKEN = config.token;
  } else if (snapshot.sourceOf('CHORUS_AI_API_TOKEN') === 'console') {
    // The console's own copy goes (null removes it): a token from a lower source applies again.
    values.CHORUS_AI_API_TOKEN = null;
  }
  const serverChanged = 'CHORUS_AI_SERVER_HOST' in values || 'CHORUS_AI_SERVER_PORT' in values;
  const unchanged = { ...endpoint, changed: false };
  if (Object.keys(values).length === 0)
    return { server: unchanged, tokenChanged: false, tokenSource: tokenSourceOf(settings, config), error: null };
  try {
    await settings.saveConsoleSettings(values);
    return {
      server: { ...endpoint, changed: serverChanged },
      tokenChanged: settings.current().ai.apiToken !== tokenBefore,
      tokenSource: tokenSourceOf(settings, config),
      error: null,
    };
  } catch (error) {
    const message = errorMessage(error);
    return {
      server: unchanged,
      tokenChanged: false,
      tokenSource: tokenSourceOf(settings, config),
      error: `settings not saved: ${message}`,
    };
  }
}
