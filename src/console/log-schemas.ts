/** Request and response schemas of the service-log routes (`/logs`, `/log-errors`). */
import Type from 'typebox';
import { LOG_LEVEL_NAMES } from '../ops/logs/index.ts';
import { LOG_ROUTES } from './limits.ts';

const Level = Type.String({ enum: [...LOG_LEVEL_NAMES], description: 'The least severe level shown.' });
const Scope = Type.String({
  maxLength: 64,
  description: 'Only this scope (the `scope` field, else console, jobs, onebot, repeater, store, community, service).',
});
const Text = Type.String({ maxLength: 200, description: 'Case-insensitive text in the message or the fields.' });

export const LogFilterQuery = {
  level: Type.Optional(Level),
  scope: Type.Optional(Scope),
  q: Type.Optional(Text),
};

export const LogsQuery = Type.Object({
  ...LogFilterQuery,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LOG_ROUTES.maxLimit, default: LOG_ROUTES.defaultLimit })),
});

export const LogExportQuery = Type.Object({
  ...LogFilterQuery,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LOG_ROUTES.maxExport, default: LOG_ROUTES.defaultExport })),
});

export const LogStreamQuery = Type.Object({
  ...LogFilterQuery,
  last_event_id: Type.Optional(
    Type.Integer({ minimum: 0, description: 'Resume after this entry id (wins over the Last-Event-ID header).' }),
  ),
});

export const LogEntry = Type.Object(
  {
    id: Type.Integer({ description: 'Increasing sequence number; a stream resumes after it.' }),
    level: Type.String({ enum: [...LOG_LEVEL_NAMES] }),
    time: Type.Integer({ description: 'Unix milliseconds.' }),
    scope: Type.String(),
    message: Type.String(),
    fields: Type.Object({}, { additionalProperties: true, description: 'The other fields of the line.' }),
  },
  { title: 'LogEntry' },
);

export const LogPage = Type.Object({
  entries: Type.Array(LogEntry, { description: 'Oldest first.' }),
  max_entries: Type.Integer({ description: 'How many entries the in-memory log keeps at most.' }),
  oldest_id: Type.Integer(),
  next_id: Type.Integer({ description: 'The id the next entry will get (resume a stream from it).' }),
});

export const LogStreamEvent = Type.Object(
  {
    type: Type.String({ enum: ['ready', 'entry', 'gap'] }),
    next_id: Type.Optional(Type.Integer({ description: 'ready: where the stream starts.' })),
    skipped: Type.Optional(
      Type.Integer({ description: 'gap: entries this client missed because they left the log before it read them.' }),
    ),
    entry: Type.Optional(LogEntry),
  },
  { title: 'LogStreamEvent' },
);

export const LogErrorsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LOG_ROUTES.maxErrors, default: LOG_ROUTES.defaultErrors })),
});

export const LogErrors = Type.Object({
  entries: Type.Array(LogEntry, { description: 'Error and fatal entries since the last cleanup, newest first.' }),
  total: Type.Integer({ description: 'How many were logged since the last cleanup (some may have been dropped).' }),
  cleared_at: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix ms of the last cleanup.' }),
});

export const LogErrorsCleanup = Type.Object({ removed: Type.Integer() });
