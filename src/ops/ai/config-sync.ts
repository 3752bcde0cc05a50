/**
 * Saving the extension config: the request replaces the config (fields it leaves out get their
 * defaults) except the token, which is a secret the console never shows: left out or "" keeps
 * the stored token, null clears it. After the save, the AI server host and port settings are set
 * from the base URL and the AI token setting from the token, so the install status, the write-back
 * and a bootstrapped runtime agree with what the console talks to.
 */
import { ValidationError, errorMessage } from '../../common/errors.ts';
import { normaliseAiConfig, normaliseBaseUrl, type AiExtensionConfig } from './config-file.ts';
import { endpointOf, type AiEndpoint } from './endpoint.ts';
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

export interface SyncOutcome {
  server: AiEndpoint & { changed: boolean };
  tokenChanged: boolean;
  error: string | null;
}

export async function syncSettings(settings: AiSettings, config: AiExtensionConfig): Promise<SyncOutcome> {
  const endpoint = endpointOf(config.base_url) as AiEndpoint;
  const snapshot = settings.current();
  const values: Record<string, unknown> = {};
  if (snapshot.ai.serverHost !== endpoint.host) values.CHORUS_AI_SERVER_HOST = endpoint.host;
  if (snapshot.ai.serverPort !== endpoint.port) values.CHORUS_AI_SERVER_PORT = endpoint.port;
  if (snapshot.ai.apiToken !== config.token) values.CHORUS_AI_API_TOKEN = config.token;
  const serverChanged = 'CHORUS_AI_SERVER_HOST' in values || 'CHORUS_AI_SERVER_PORT' in values;
  const tokenChanged = 'CHORUS_AI_API_TOKEN' in values;
  if (Object.keys(values).length === 0)
    return { server: { ...endpoint, changed: false }, tokenChanged: false, error: null };
  try {
    await settings.saveConsoleSettings(values);
    return { server: { ...endpoint, changed: serverChanged }, tokenChanged, error: null };
  } catch (error) {
    const message = errorMessage(error);
    return { server: { ...endpoint, changed: false }, tokenChanged: false, error: `settings not saved: ${message}` };
  }
}
