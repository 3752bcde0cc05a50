/** Request and response schemas of the AI-extension routes. */
import Type from 'typebox';
import {
  AI_CONFIG_BOUNDS,
  AI_CONFIG_FIELDS,
  AI_TOKEN_SOURCES,
  INSTALL_ACTIONS,
  LOG_ERROR_CODES,
  LOG_KINDS,
  LOG_LINES,
} from '../ops/ai/index.ts';
import { JobStatus } from './job-schemas.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const FreeObject = Type.Object({}, { additionalProperties: true });
const b = AI_CONFIG_BOUNDS;

export const AiConfig = Type.Object(
  {
    base_url: Type.String({ description: 'Where the AI service listens, e.g. http://127.0.0.1:9099.' }),
    api_prefix: Type.String({ description: 'Prefix of its API routes, e.g. /api.' }),
    token: Type.String({ description: 'Always "": the token is never shown (see token_set).' }),
    token_set: Type.Boolean({ description: 'Whether a Bearer token is stored.' }),
    health_paths: Type.Array(Type.String(), { description: 'Tried in order by the connection test.' }),
    uvicorn_log_file: Type.String({ description: '"" finds the file in the usual places.' }),
    celery_log_file: Type.String(),
    celery_media_log_file: Type.String(),
    timeout_sec: Type.Integer({ minimum: b.timeoutSec.min, maximum: b.timeoutSec.max }),
  },
  { title: 'AiExtensionConfig' },
);

/** The fields a config body may have (the stored config's fields). */
export const AI_CONFIG_BODY_FIELDS: readonly string[] = AI_CONFIG_FIELDS;

const LogFile = Type.String({ maxLength: b.logFileMaxChars });

export const AiConfigBody = Type.Object(
  {
    base_url: Type.String({ minLength: b.baseUrlChars.min, maxLength: b.baseUrlChars.max }),
    api_prefix: Type.Optional(
      Type.String({ minLength: b.apiPrefixChars.min, maxLength: b.apiPrefixChars.max, default: '/api' }),
    ),
    token: Type.Optional(
      Nullable(
        Type.String({
          maxLength: b.tokenMaxChars,
          description: 'Left out or "" keeps the stored token; null clears it.',
        }),
      ),
    ),
    health_paths: Type.Optional(
      Type.Array(Type.String({ maxLength: b.healthPathMaxChars }), {
        maxItems: b.healthPathsMax,
        default: ['/health'],
      }),
    ),
    uvicorn_log_file: Type.Optional(LogFile),
    celery_log_file: Type.Optional(LogFile),
    celery_media_log_file: Type.Optional(LogFile),
    timeout_sec: Type.Optional(
      Type.Integer({ minimum: b.timeoutSec.min, maximum: b.timeoutSec.max, default: b.timeoutSec.default }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Replaces the config: fields left out get their defaults (the token is kept).',
  },
);

export const SavedAiConfig = Type.Object({
  ok: Type.Literal(true),
  data: AiConfig,
  synced_ai_server: Type.Object(
    { host: Type.String(), port: Type.Integer(), changed: Type.Boolean() },
    { description: 'CHORUS_AI_SERVER_HOST/PORT as set from base_url; changed when they moved.' },
  ),
  synced_ai_token: Type.Boolean({ description: 'Whether CHORUS_AI_API_TOKEN was changed by the save.' }),
  ai_token_source: Type.String({
    enum: [...AI_TOKEN_SOURCES],
    description:
      'Where the token sent to the AI service comes from: console (saved here), dotenv, toml, env, or none. ' +
      'A save without a token never overwrites one set in .env, chorus.toml or the environment.',
  }),
  sync_error: Nullable(Type.String({ description: 'Why the settings could not be synced (the config was saved).' })),
});

const Summary = Nullable(FreeObject);

export const ProbeResult = Type.Object({
  ok: Type.Boolean(),
  status_code: Nullable(Type.Integer()),
  health_url: Type.String({ description: 'The URL that answered, or the first that failed.' }),
  tried_urls: Type.Array(Type.String()),
  error: Nullable(Type.String()),
  status: Nullable(Type.String({ description: 'The health body’s status text.' })),
  llm_detail: Nullable(Type.String()),
  media_tasks: Summary,
  llm_health: Summary,
  tts_health: Summary,
  image_circuit: Summary,
  elapsed_ms: Type.Number(),
});

export const InstallStatus = Type.Object({
  detected: Type.Boolean(),
  layout: Type.String({ enum: ['missing', 'managed', 'sibling', 'external'] }),
  ai_root: Nullable(Type.String()),
  managed_root: Type.String(),
  is_managed: Type.Boolean(),
  bootstrap_script: Type.String(),
  bootstrap_ready: Type.Boolean(),
  git_available: Type.Boolean(),
  git_url: Type.String(),
  deployment: Type.String({ enum: ['source', 'release', 'container'] }),
  endpoint: Type.Object({ host: Type.String(), port: Type.Integer() }),
  forbidden: Type.Boolean(),
  forbidden_reasons: Type.Array(Type.String(), { description: 'In English, for API clients and logs.' }),
  forbidden_codes: Type.Array(
    Type.Object({
      code: Type.String({ enum: ['in_container', 'other_host', 'external'] }),
      params: Type.Record(Type.String(), Type.String()),
    }),
    { description: 'The forbidden reasons as codes (host, url) the web console words.' },
  ),
  can_clone: Type.Boolean(),
  can_bootstrap: Type.Boolean(),
  can_update: Type.Boolean(),
  has_update: Nullable(Type.Boolean()),
  installed_ref: Nullable(Type.String()),
  latest_ref: Nullable(Type.String()),
  update_check_error: Nullable(Type.String()),
  active_job: Nullable(JobStatus),
});

export const InstallBody = Type.Object(
  {
    action: Type.Optional(Type.String({ enum: [...INSTALL_ACTIONS], default: 'clone_and_bootstrap' })),
    no_start: Type.Optional(Type.Boolean({ default: false, description: 'Bootstrap without starting the service.' })),
    use_gpu: Type.Optional(Type.Boolean({ default: false, description: 'Ask the bootstrap for GPU builds.' })),
    // The origin's console client sends these two; its bootstrap ignored them too.
    remote_only: Type.Optional(Type.Boolean({ description: 'Accepted for the origin’s client and ignored.' })),
    with_media: Type.Optional(Type.Boolean({ description: 'Accepted for the origin’s client and ignored.' })),
  },
  { additionalProperties: false },
);

const Kind = Type.String({ enum: [...LOG_KINDS], default: 'uvicorn' });

export const LogsQuery = Type.Object({
  kind: Type.Optional(Kind),
  n: Type.Optional(Type.Integer({ minimum: LOG_LINES.min, maximum: LOG_LINES.max, default: LOG_LINES.default })),
});

export const LogStreamQuery = Type.Object({
  kind: Type.Optional(Kind),
  last_event_id: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Resume after this line id (wins over the Last-Event-ID header).' }),
  ),
});

const LOG_ERROR_DOC =
  'Why no lines came: path_refused (a path outside the allowed folders), unreadable (a local file that cannot be ' +
  'read), token_refused (the AI service refused the token), not_found (no local file, and the AI service did not ' +
  'provide the log: see `tried`), remote_stopped (a followed AI service stopped answering); null with lines.';

export const LogTail = Type.Object({
  kind: Type.String({ enum: [...LOG_KINDS] }),
  path: Type.String(),
  lines: Type.Array(Type.String()),
  error: Nullable(
    Type.String({ description: 'What went wrong, in English for the API (the console words `error_code`).' }),
  ),
  error_code: Nullable(Type.String({ enum: [...LOG_ERROR_CODES], description: LOG_ERROR_DOC })),
  source: Type.String({ enum: ['local', 'remote', 'none'] }),
  tried: Type.Array(Type.String(), { description: 'Local files and the remote URL tried, in order.' }),
});

/**
 * One event of the log stream: `ready` (kind, path, source), `line` (one per log line; local lines
 * carry an SSE id, a byte offset to resume from), or `error` (then the stream ends).
 */
export const LogStreamEvent = Type.Object(
  {
    type: Type.String({ enum: ['ready', 'line', 'error'] }),
    kind: Type.String({ enum: [...LOG_KINDS] }),
    path: Type.String(),
    source: Type.Optional(Type.String({ enum: ['local', 'remote'] })),
    line: Type.Optional(Type.String()),
    error: Type.Optional(Type.String()),
    error_code: Type.Optional(Type.String({ enum: [...LOG_ERROR_CODES], description: LOG_ERROR_DOC })),
    tried: Type.Optional(
      Type.Array(Type.String(), { description: 'error: the local files and the remote URL tried.' }),
    ),
  },
  { title: 'AiLogStreamEvent' },
);

export const NcmReply = Type.Object({
  ok: Type.Boolean({ description: 'Whether the AI service answered 2xx.' }),
  status_code: Nullable(Type.Integer()),
  url: Type.String(),
  data: FreeObject,
  error: Nullable(Type.String()),
});

const Phone = Type.String({ minLength: 5, maxLength: 32, pattern: '^[0-9]+$' });
const CountryCode = Type.Optional(Type.Integer({ minimum: 1, maximum: 999, default: 86 }));

export const SendSmsBody = Type.Object({ phone: Phone, ctcode: CountryCode }, { additionalProperties: false });

export const VerifySmsBody = Type.Object(
  { phone: Phone, captcha: Type.String({ minLength: 2, maxLength: 16 }), ctcode: CountryCode },
  { additionalProperties: false },
);
