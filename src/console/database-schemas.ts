/** Request and response schemas of the database routes (routes/database.ts). */
import Type from 'typebox';

export const Name = Type.String({
  minLength: 1,
  maxLength: 128,
  description: 'A backup file name from GET /db/backup/runs.',
});

export const BackupRun = Type.Object({
  name: Type.String(),
  label: Type.String(),
  engine: Type.String({ enum: ['sqlite', 'postgres'] }),
  format: Type.String({
    enum: ['sqlite', 'pg-dump', 'corpus-jsonl-gz'],
    description: 'A SQLite file, a pg_dump custom-format dump, or the portable corpus file.',
  }),
  created_at: Type.Integer({ description: 'Unix seconds.' }),
  bytes: Type.Integer(),
  sha256: Type.String(),
  contexts: Type.Integer({ description: 'Contexts in the corpus when it was taken.' }),
  schema: Type.Optional(Type.String({ description: 'pg-dump: the PostgreSQL schema it holds.' })),
});

export const RestoreResult = Type.Object({
  ok: Type.Boolean(),
  code: Type.Optional(
    Type.String({
      enum: ['restored', 'file_changed', 'not_restored'],
      description:
        'restored; file_changed (the backup file is not the one recorded); not_restored (the check or the ' +
        'replacement failed: the previous database is in use, `detail` says why). Absent in an older result.',
    }),
  ),
  name: Type.String(),
  detail: Type.String(),
  at: Type.Integer(),
});

export const BackupInfo = Type.Object({
  engine: Type.String(),
  format: Type.String({
    enum: ['sqlite', 'pg-dump', 'corpus-jsonl-gz'],
    description:
      'What a backup of this engine is: a SQLite file, a pg_dump (PostgreSQL with the client tools installed), ' +
      'or the portable corpus file.',
  }),
  folder: Type.String(),
  runs: Type.Integer(),
  bytes: Type.Integer(),
  last_backup_at: Type.Union([Type.Integer(), Type.Null()]),
  last_restore: Type.Union([RestoreResult, Type.Null()]),
});

export const BackupBody = Type.Object(
  {
    label: Type.Optional(
      Type.String({ maxLength: 40, description: 'Letters, digits, _ or -; part of the file name.' }),
    ),
  },
  { additionalProperties: false },
);

export const RestoreBody = Type.Object(
  {
    name: Name,
    confirm_token: Type.Optional(
      Type.String({ maxLength: 200, description: 'From the preview (the same call without it); 10 minutes.' }),
    ),
  },
  { additionalProperties: false },
);

export const RestoreAnswer = Type.Object({
  stage: Type.String({ enum: ['preview', 'restarting', 'job'] }),
  run: Type.Optional(BackupRun),
  effect: Type.Optional(Type.String()),
  confirm_token: Type.Optional(Type.String()),
  expires_at: Type.Optional(Type.Integer()),
  job_id: Type.Optional(Type.String()),
});

export const DeleteBody = Type.Object(
  { names: Type.Array(Name, { minItems: 1, maxItems: 100 }) },
  { additionalProperties: false },
);

export const RetentionPolicyFields = {
  days: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 36_500, description: 'Message log rows older than this many days go.' }),
  ),
  max_rows: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: 'Only the newest this many rows stay.' }),
  ),
};

export const RetentionPreviewBody = Type.Object(RetentionPolicyFields, { additionalProperties: false });
export const RetentionApplyBody = Type.Object(
  { ...RetentionPolicyFields, confirm_token: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const RetentionPreview = Type.Object({
  total_rows: Type.Integer(),
  by_age: Type.Integer(),
  by_rows: Type.Integer(),
  to_delete: Type.Integer({ description: 'Rows the policy deletes.' }),
  confirm_token: Type.String({ description: 'Apply this policy with it within 10 minutes.' }),
  expires_at: Type.Integer(),
});
