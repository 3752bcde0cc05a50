/**
 * Schemas of long-running jobs, shared by every domain that runs them (AI install, update,
 * backups): the job as `GET …/jobs/{id}` answers it and the events of its SSE stream.
 */
import Type from 'typebox';

const JOB_PHASES = ['queued', 'running', 'done', 'failed'];
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const FreeObject = Type.Object({}, { additionalProperties: true });

/** A message as a code with parameters; the console words it in the reader's language. */
export const JobText = Type.Object(
  {
    code: Type.String({ description: 'Dotted, e.g. corpus_file.not_json.' }),
    params: Type.Record(Type.String(), Type.Union([Type.String(), Type.Number()])),
  },
  { title: 'JobText' },
);

export const JobStatus = Type.Object(
  {
    job_id: Type.String(),
    kind: Type.String({ description: 'What runs, e.g. ai-install.' }),
    action: Type.Union([Type.String(), Type.Null()], {
      description: 'The requested action, when the kind has several.',
    }),
    phase: Type.String({ enum: JOB_PHASES }),
    message: Type.String({ description: 'In English, for logs; the console shows `text` when set.' }),
    text: Type.Union([JobText, Type.Null()], { description: 'The message (or the error) as a code with parameters.' }),
    progress_percent: Type.Integer({ minimum: 0, maximum: 100 }),
    result: Type.Union([FreeObject, Type.Null()], {
      description: 'Set when the job ended (a failed job may carry a partial result).',
    }),
    error: Nullable(Type.String()),
    created_at: Type.Integer({ description: 'Unix milliseconds.' }),
    updated_at: Type.Integer({ description: 'Unix milliseconds.' }),
    log_lines: Type.Array(Type.String(), { description: 'The last output lines.' }),
  },
  { title: 'JobStatus' },
);

export const JobStarted = Type.Object({ job_id: Type.String(), action: Type.String() });

export const JobIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * One event of a job stream (the `data:` JSON; events have no names). `ready` first, `progress`
 * for every step and output line (replayed from the first on connect), then exactly one
 * `complete` (succeeded) or `error` (failed, or `error: "job_not_found"`), after which the
 * stream ends. `: heartbeat` comments keep it open while idle.
 */
export const JobStreamEvent = Type.Object(
  {
    type: Type.String({ enum: ['ready', 'progress', 'complete', 'error'] }),
    phase: Type.String({ enum: JOB_PHASES }),
    message: Type.String(),
    text: Type.Optional(JobText),
    progress_percent: Type.Integer({ minimum: 0, maximum: 100 }),
    error: Type.Optional(Nullable(Type.String())),
    ts: Type.Optional(Type.Integer({ description: 'Unix milliseconds.' })),
    line: Type.Optional(Type.String({ description: 'An output line of the program the job runs.' })),
    job_id: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    action: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    result: Type.Optional(Type.Union([FreeObject, Type.Null()])),
    log_lines: Type.Optional(Type.Array(Type.String())),
  },
  { title: 'JobStreamEvent' },
);

/** The 200 of an SSE route, for the OpenAPI document. */
export function eventStream(event: ReturnType<typeof Type.Object>, description: string) {
  return { description, content: { 'text/event-stream': { schema: event } } };
}
