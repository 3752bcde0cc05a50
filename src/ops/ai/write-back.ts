/**
 * After a successful bootstrap or update, the defaults a fresh runtime needs are written where
 * nothing was set: `ai_extension.json` only when it is missing or names no base URL (a base URL an
 * operator chose is never overwritten; the token is kept), and the AI server host and port
 * settings only when neither is set anywhere.
 */
import { join } from 'node:path';
import type { AiConfigFile } from './config-file.ts';
import { DEFAULT_AI_PORT } from './limits.ts';
import { LOG_FILE_NAMES, LOG_KINDS } from './log-files.ts';
import type { AiSettings } from './settings.ts';

export interface WriteBackOutcome {
  wrote_ai_extension: boolean;
  wrote_ai_server: boolean;
}

const hostInUrl = (host: string) => (host.includes(':') ? `[${host}]` : host);

export async function writeBackDefaults(
  file: AiConfigFile,
  settings: AiSettings,
  aiRoot: string,
): Promise<WriteBackOutcome> {
  const snapshot = settings.current();
  const serverUnset =
    snapshot.sourceOf('CHORUS_AI_SERVER_HOST') === 'default' &&
    snapshot.sourceOf('CHORUS_AI_SERVER_PORT') === 'default';
  const written = await file.update(({ config, hasBaseUrl }) => {
    if (hasBaseUrl) return null;
    const [uvicorn, celery, media] = LOG_KINDS.map((kind) => join(aiRoot, 'logs', LOG_FILE_NAMES[kind][0] as string));
    return {
      ...config,
      base_url: `http://${hostInUrl(snapshot.ai.serverHost)}:${snapshot.ai.serverPort}`,
      api_prefix: '/api',
      health_paths: ['/health'],
      uvicorn_log_file: uvicorn,
      celery_log_file: celery,
      celery_media_log_file: media,
    };
  });
  if (serverUnset) {
    await settings.saveConsoleSettings({ CHORUS_AI_SERVER_HOST: '127.0.0.1', CHORUS_AI_SERVER_PORT: DEFAULT_AI_PORT });
  }
  return { wrote_ai_extension: written !== null, wrote_ai_server: serverUnset };
}
