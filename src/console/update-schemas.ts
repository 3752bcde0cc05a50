/** Request and response schemas of the update routes. */
import Type from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

const checkFields = {
  configured: Type.Boolean({
    description: 'Whether a release feed is set (CHORUS_UPDATE_FEED_URL); false is not an error.',
  }),
  track: Type.String({ enum: ['stable', 'prerelease'] }),
  current_version: Type.String({ description: 'The installed version.' }),
  latest_tag: Nullable(Type.String()),
  latest_version: Nullable(Type.String()),
  has_update: Type.Boolean({ description: 'The latest release of the track is newer (semantic versions).' }),
  release_url: Type.String(),
  release_name: Type.String(),
  release_notes: Type.String(),
  published_at: Nullable(Type.String()),
  error: Nullable(Type.String({ description: 'Why the feed could not be read.' })),
  checked_at: Type.Integer({ description: 'Unix milliseconds.' }),
};

export const WebCheck = Type.Object(
  {
    ...checkFields,
    asset_url: Type.String({ description: 'The web-console archive of the latest release.' }),
    bundled_version: Type.String({ description: 'The web console this bot carries (its own version).' }),
    installed_version: Nullable(Type.String({ description: 'A web-console release installed from the feed.' })),
    serving: Type.String({
      enum: ['bundled', 'installed'],
      description: 'Which is served: the installed release only while it is newer than the bundled console.',
    }),
  },
  { title: 'WebUpdateCheck' },
);

export const DEPLOYMENT_KINDS = ['source', 'release', 'container'];

export const BotCheck = Type.Object(
  {
    ...checkFields,
    deployment: Type.String({ enum: DEPLOYMENT_KINDS }),
    running_version: Type.String({ description: 'The version of the running process.' }),
    previous_version: Nullable(Type.String({ description: 'What a rollback goes back to.' })),
    restart_pending: Type.Boolean({ description: 'An installed version differs from the running one.' }),
    restart_available: Type.Boolean({ description: 'A supervisor can restart the service.' }),
    development_build: Type.Boolean({ description: 'The running version is newer than the latest release.' }),
    can_apply: Type.Boolean(),
    apply_refusal: Nullable(Type.String({ description: 'Why apply is not possible here, and what to do instead.' })),
    apply_refusal_code: Nullable(
      Type.String({
        enum: ['no_feed', 'source_deployment', 'container_image', 'no_release_folder'],
        description:
          'The code of apply_refusal, which the console words: no release feed, a source (git) deployment, a ' +
          'container without a release folder (update the image), no release folder.',
      }),
    ),
    can_rollback: Type.Boolean(),
  },
  { title: 'BotUpdateCheck' },
);

export const BotApplyQuery = Type.Object({
  restart: Type.Optional(Type.Boolean({ default: false, description: 'Restart the supervised service afterwards.' })),
});

export const UpdateJobStarted = Type.Object({
  job_id: Type.String(),
  kind: Type.String({ enum: ['webui', 'bot'] }),
  restart: Type.Optional(Type.Boolean()),
});

export const RollbackResult = Type.Object({
  version: Type.String({ description: 'The version current now.' }),
  previous_version: Nullable(Type.String()),
  message: Type.String(),
  restart_scheduled: Type.Boolean(),
});

export const HistoryQuery = Type.Object({
  mode: Type.Optional(Type.String({ enum: ['release', 'commit'], default: 'commit' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 30 })),
});

const GitHead = Type.Object({
  sha: Type.String(),
  short_sha: Type.String(),
  tag: Type.String({ description: 'The tag at HEAD (source), or the installed version.' }),
  date: Type.String(),
  message: Type.String(),
});

export const HistoryPage = Type.Object(
  {
    mode: Type.String({ enum: ['release', 'commit'] }),
    deployment: Type.String({ enum: DEPLOYMENT_KINDS }),
    items: Type.Array(
      Type.Object({
        kind: Type.String({ enum: ['release', 'commit'] }),
        ref: Type.String(),
        short_ref: Type.String(),
        date: Type.String(),
        message: Type.String(),
        is_head: Type.Boolean(),
        is_latest: Type.Boolean(),
      }),
    ),
    head: Nullable(GitHead),
    error: Nullable(Type.String({ description: 'Why the list may be stale or empty (git fetch or the feed failed).' })),
  },
  { title: 'UpdateHistory' },
);

export const GitApplyBody = Type.Object(
  {
    mode: Type.Optional(Type.String({ enum: ['release', 'commit'], default: 'release' })),
    ref: Type.Optional(
      Type.String({
        maxLength: 200,
        pattern: '^([^\\s-][^\\s]*)?$',
        default: '',
        description:
          'A release tag (release) or a commit, branch or tag (commit); "" = the newest release / the upstream branch.',
      }),
    ),
    strategy: Type.Optional(
      Type.String({
        enum: ['safe', 'force'],
        default: 'safe',
        description: 'force discards local changes of a checkout.',
      }),
    ),
    restart: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);

export const GitJobStarted = Type.Object({
  job_id: Type.String(),
  kind: Type.String({ enum: ['bot'] }),
  mode: Type.String(),
  strategy: Type.String(),
  restart: Type.Boolean(),
});

const MigrationItem = Type.Object({
  file: Type.String({ enum: ['.env', 'chorus.toml'] }),
  line: Type.Integer({ minimum: 1 }),
  key: Type.String(),
  action: Type.String({ enum: ['rename', 'remove'] }),
  to: Nullable(Type.String()),
  reason: Type.String(),
  value_ok: Nullable(Type.Boolean({ description: 'For a rename: whether the value is valid for the new key.' })),
  problem: Nullable(Type.String()),
});

const migrationFields = {
  items: Type.Array(MigrationItem, { description: 'Keys only: values are never shown.' }),
  files: Type.Array(Type.String(), { description: 'Files that would be (or were) rewritten.' }),
  needed: Type.Boolean(),
};

export const MigrationCheck = Type.Object(migrationFields, { title: 'ConfigMigrationCheck' });

export const MigrationApplied = Type.Object(
  {
    ...migrationFields,
    backups: Type.Array(Type.String(), { description: 'Copies made before rewriting, in the project folder.' }),
    after: MigrationCheck,
  },
  { title: 'ConfigMigrationApplied' },
);
