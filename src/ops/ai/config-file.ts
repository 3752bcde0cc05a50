/**
 * The extension config in `data/ai_extension.json`: how to reach the AI service, its Bearer token,
 * the health paths the probe tries, explicit log file paths and the request timeout. It is
 * normalised on every load and save: a missing, unreadable or non-object file gives the defaults,
 * each field that is missing or of the wrong kind gets its default, unknown fields are dropped.
 * Saves are written atomically (mode 0600: the file holds the token) and one at a time.
 */
import { readFile } from 'node:fs/promises';
import { Mutex } from 'async-mutex';
import { writeFileAtomic } from '../../config/index.ts';
import { AI_CONFIG_BOUNDS, DEFAULT_AI_BASE_URL } from './limits.ts';

export interface AiExtensionConfig {
  base_url: string;
  api_prefix: string;
  token: string;
  health_paths: string[];
  uvicorn_log_file: string;
  celery_log_file: string;
  celery_media_log_file: string;
  timeout_sec: number;
}

export const AI_CONFIG_FIELDS = [
  'base_url',
  'api_prefix',
  'token',
  'health_paths',
  'uvicorn_log_file',
  'celery_log_file',
  'celery_media_log_file',
  'timeout_sec',
] as const satisfies readonly (keyof AiExtensionConfig)[];

export function defaultAiConfig(): AiExtensionConfig {
  return {
    base_url: DEFAULT_AI_BASE_URL,
    api_prefix: '/api',
    token: '',
    health_paths: ['/health'],
    uvicorn_log_file: '',
    celery_log_file: '',
    celery_media_log_file: '',
    timeout_sec: AI_CONFIG_BOUNDS.timeoutSec.default,
  };
}

/**
 * `http://host:port` without a trailing slash; a bare `host:port` gets `http://`. Null when the
 * text is not an http(s) URL with a host.
 */
export function normaliseBaseUrl(text: string): string | null {
  let url = text.trim().replace(/\/+$/, '');
  if (url === '') return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) url = `http://${url}`;
  if (!URL.canParse(url)) return null;
  const parsed = new URL(url);
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') return null;
  if (parsed.username !== '' || parsed.password !== '' || parsed.search !== '' || parsed.hash !== '') return null;
  return url;
}

/** A URL path: one leading slash, no trailing or doubled ones; "/" alone becomes "" (no prefix). */
export function normalisePath(text: string): string {
  const path = `/${text.trim()}`.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  return path;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function clampTimeout(value: unknown): number {
  const { min, max, default: fallback } = AI_CONFIG_BOUNDS.timeoutSec;
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) n = Number(value);
  else return fallback;
  if (!Number.isFinite(n)) return fallback;
  return Math.max(min, Math.min(max, Math.trunc(n)));
}

/** Normalises anything (a parsed file, a request body) into a complete config. */
export function normaliseAiConfig(input: unknown): AiExtensionConfig {
  const defaults = defaultAiConfig();
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return defaults;
  const raw = input as Record<string, unknown>;
  const baseUrl = normaliseBaseUrl(text(raw.base_url) ?? '');
  const prefix = text(raw.api_prefix)?.trim();
  const paths = Array.isArray(raw.health_paths)
    ? raw.health_paths
        .filter((item): item is string => typeof item === 'string' && item.trim() !== '')
        .map((item) => normalisePath(item) || '/')
    : [];
  const logFile = (value: unknown) => (text(value) ?? '').trim();
  return {
    base_url: baseUrl ?? defaults.base_url,
    api_prefix: prefix ? normalisePath(prefix) : defaults.api_prefix,
    token: (text(raw.token) ?? '').trim(),
    health_paths:
      paths.length > 0 ? [...new Set(paths)].slice(0, AI_CONFIG_BOUNDS.healthPathsMax) : defaults.health_paths,
    uvicorn_log_file: logFile(raw.uvicorn_log_file),
    celery_log_file: logFile(raw.celery_log_file),
    celery_media_log_file: logFile(raw.celery_media_log_file),
    timeout_sec: clampTimeout(raw.timeout_sec),
  };
}

export interface StoredAiConfig {
  config: AiExtensionConfig;
  /** Whether the file exists with a non-empty base_url (the install write-back leaves it alone then). */
  hasBaseUrl: boolean;
}

export class AiConfigFile {
  readonly #path: string;
  readonly #lock = new Mutex();

  constructor(path: string) {
    this.#path = path;
  }

  get path(): string {
    return this.#path;
  }

  async load(): Promise<AiExtensionConfig> {
    return (await this.#read()).config;
  }

  /** The config and whether the file names a base URL of its own. */
  async inspect(): Promise<StoredAiConfig> {
    return this.#read();
  }

  /** Normalises and writes; returns what was written. */
  save(config: unknown): Promise<AiExtensionConfig> {
    return this.#lock.runExclusive(async () => {
      const clean = normaliseAiConfig(config);
      await writeFileAtomic(this.#path, `${JSON.stringify(clean, null, 2)}\n`, { mode: 0o600 });
      return clean;
    });
  }

  /** Writes the result of `change(current)` under the save lock (read, modify, write). */
  update(change: (current: StoredAiConfig) => unknown | null): Promise<AiExtensionConfig | null> {
    return this.#lock.runExclusive(async () => {
      const next = change(await this.#read());
      if (next === null) return null;
      const clean = normaliseAiConfig(next);
      await writeFileAtomic(this.#path, `${JSON.stringify(clean, null, 2)}\n`, { mode: 0o600 });
      return clean;
    });
  }

  async #read(): Promise<StoredAiConfig> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(this.#path, 'utf8'));
    } catch {
      // Missing or unparsable: the defaults, as if nothing had been saved.
      return { config: defaultAiConfig(), hasBaseUrl: false };
    }
    const raw = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
    const baseUrl = (raw as Record<string, unknown>).base_url;
    return {
      config: normaliseAiConfig(parsed),
      hasBaseUrl: typeof baseUrl === 'string' && baseUrl.trim() !== '',
    };
  }
}
