// Words of the settings page (English): each configuration key's label and description, looked up
// by its env key; one to one with settings-zh.ts. Only the settings page loads it.
export default {
  sections: {
    language_model: 'Language model',
    core: 'Reply library and community sharing',
    repeater: 'Repeating and replying',
    onebot: 'QQ connection (OneBot)',
    console: 'Console sign-in',
    community_stats: 'Community statistics',
    server: 'Service address',
    logging: 'Logging',
    storage: 'Data and database',
    remote_budget: 'Community request limits',
  },
  groups: {
    sources: 'Reply sources',
    community: 'Community library',
    history_backfill: 'History upload',
    reply_performance: 'Reply speed and caches',
    persona: 'Names and identity',
    reply: 'When to reply',
    pacing: 'Pacing',
    proactive_speech: 'Talking first',
    performance: 'Lookup speed',
    maintenance: 'Daily maintenance',
    catchphrases: 'Catchphrases',
    learning_guard: 'Learning filter',
    contamination_cleanup: 'Contamination cleanup',
    onebot: 'Connection',
    milky: 'Milky',
    community_statistics: 'Community statistics',
    console_access: 'Sign-in and tokens',
    http: 'Network address',
    scaling: 'Several processes',
    logging: 'Logging',
    storage: 'Storage',
    remote_budget: 'Community requests',
    model_provider: 'Model provider',
    model_bounds: 'Call limits',
  },
  sources: {
    default: 'default',
    env: 'environment',
    dotenv: 'environment (.env file)',
    toml: 'config file (chorus.toml)',
    console: 'console',
  },
  choices: {
    auto: 'Automatic',
    true: 'On',
    false: 'Off',
    'local,community': 'Local first, then community',
    local: 'Local only',
    local_first: 'Use local answers when there are any',
    merge_counts: 'Add up counts from every source',
    prefetch: 'Fetch in the background after a miss',
    sync: 'Ask while replying',
    primary: 'Primary',
    worker: 'Worker',
    trace: 'Trace (most detail)',
    debug: 'Debug',
    info: 'Info',
    warn: 'Warning',
    error: 'Error',
    fatal: 'Fatal',
    json: 'JSON lines',
    pretty: 'Readable, coloured',
    console: 'Console only',
    all: 'Console and standard output',
    off: 'Not logged',
  },
  fields: {
    CHORUS_LLM_BASE_URL: {
      label: 'Model base URL',
      help: 'An OpenAI Chat Completions compatible address, e.g. https://api.deepseek.com/v1, or a local Ollama at http://127.0.0.1:11434/v1. Blank: no language model at all.',
    },
    CHORUS_LLM_API_KEY: {
      label: 'Model API key',
      help: 'Sent to the provider (never shown or logged). Blank for a local model that needs none.',
    },
    CHORUS_LLM_MODEL: {
      label: 'Chat model',
      help: 'The model that answers members when the bot is addressed, e.g. deepseek-chat, qwen2.5:7b.',
    },
    CHORUS_LLM_BACKGROUND_MODEL: {
      label: 'Background model',
      help: 'For background work (memory, catchphrases); blank: the chat model.',
    },
    CHORUS_LLM_TEMPERATURE: { label: 'Temperature', help: 'How varied answers are: 0 is the steadiest.' },
    CHORUS_LLM_TIMEOUT_SEC: {
      label: 'Reply deadline',
      help: 'Seconds to wait for the model; past it the bot says nothing.',
    },
    CHORUS_LLM_CONCURRENCY: {
      label: 'Calls at once',
      help: 'Model calls under way at most; beyond it a message gets no model answer.',
    },
    CHORUS_LLM_GROUP_DAILY_CALLS: { label: 'Calls per group per day', help: '0: no limit.' },
    CHORUS_LLM_GROUP_DAILY_TOKENS: {
      label: 'Tokens per group per day',
      help: 'Prompt and answer tokens; 0: no limit.',
    },
    CHORUS_LLM_MEMBER_DAILY_CALLS: { label: 'Calls per member per day', help: '0: no limit.' },
    CHORUS_LLM_MEMBER_DAILY_TOKENS: { label: 'Tokens per member per day', help: '0: no limit.' },
    CHORUS_LLM_UNAVAILABLE_LINE: {
      label: 'Line when the model is unavailable',
      help: 'What the bot says when over budget or the model did not answer (at most once per group in ten minutes); blank: silence.',
    },
    CHORUS_LLM_SILENCE_RATE: {
      label: 'Rate in place of silence',
      help: 'In groups set to "also in place of silence": the chance (0 to 1) a message without a corpus answer gets a model answer.',
    },
    CHORUS_CORPUS_MERGE_ORDER: {
      label: 'Lookup order',
      help: 'Which library replies are looked up in first. "Local only" never asks the community. Applies at once.',
    },
    CHORUS_CORPUS_MERGE_STRATEGY: {
      label: 'Combining sources',
      help: 'Whether community counts are added even when the local library has answers. Applies at once.',
    },
    CHORUS_CORPUS_COMMUNITY_ENABLED: {
      label: 'Use the community library',
      help: 'Master switch of the shared community library. Automatic follows enrollment. Applies at once.',
    },
    CHORUS_CORPUS_AUTO_ENROLL: {
      label: 'Enroll automatically',
      help: 'Enroll with the community hub at start and receive a token. Automatic enrolls when the community library is used.',
    },
    CHORUS_CORPUS_COMMUNITY_CONTRIBUTE: {
      label: 'Share new phrases',
      help: 'Send newly learned phrases to the community. Only Off stops it.',
    },
    CHORUS_CORPUS_COMMUNITY_API_BASE: {
      label: 'Community API address',
      help: 'A manual community API address, several separated by commas (tried in order). Empty uses the enrolled one.',
    },
    CHORUS_CORPUS_COMMUNITY_TOKEN: {
      label: 'Community token',
      help: 'A manual token for the community library. Empty uses the enrolled one.',
    },
    CHORUS_CORPUS_REMOTE_FIND_ENABLED: {
      label: 'Ask the community when replying',
      help: 'When the local library has no answer: off, fetch in the background for next time, or wait for the community while replying.',
    },
    CHORUS_CORPUS_BACKFILL_ENABLED: {
      label: 'Upload history',
      help: 'Slowly upload the existing local library to the community in the background.',
    },
    CHORUS_CORPUS_BACKFILL_MAX_PER_MINUTE: {
      label: 'Uploads per minute',
      help: 'Speed limit of the history upload, in items per minute.',
    },
    CHORUS_CORPUS_BACKFILL_BATCH_SIZE: { label: 'Items per round', help: 'How many contexts one upload round reads.' },
    CHORUS_CORPUS_BACKFILL_INTERVAL_SEC: { label: 'Upload interval', help: 'Seconds between two upload rounds.' },
    CHORUS_CORPUS_REPLY_MESSAGES_CAP: {
      label: 'Messages per answer',
      help: 'Newest messages loaded per answer into a reply snapshot.',
    },
    CHORUS_CORPUS_REPLY_ANSWERS_CAP: {
      label: 'Answers per context',
      help: 'Top answers loaded per context into a reply snapshot.',
    },
    CHORUS_CORPUS_FIND_CACHE_SEC: {
      label: 'Lookup cache time',
      help: 'Seconds a lookup result (found or not) is kept. Longer saves the database but new phrases take longer to count.',
    },
    CHORUS_CORPUS_FIND_CACHE_MAX: {
      label: 'Lookup cache size',
      help: 'Entries the lookup cache keeps before it is pruned.',
    },
    CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: { label: 'Reply snapshot time', help: 'Seconds a local reply snapshot is kept.' },
    CHORUS_CORPUS_REPLY_SNAPSHOT_MAX: {
      label: 'Reply snapshot cache size',
      help: 'Entries of the reply snapshot cache before the least recently used go.',
    },
    CHORUS_CORPUS_REPLY_QUERY_TIMEOUT_SEC: {
      label: 'Snapshot query timeout',
      help: 'Seconds a reply waits for its database query; past it the message gets no reply.',
    },
    CHORUS_REPEATER_NICKNAMES: {
      label: 'Names of the bot',
      help: 'A message starting with one of these names addresses the bot (any case).',
    },
    CHORUS_REPEATER_IGNORE_USER_IDS: {
      label: 'Ignored QQ numbers',
      help: 'Messages of these numbers (other bots, say) are never learned or counted as human repeats.',
    },
    CHORUS_REPEATER_ANSWER_THRESHOLD: {
      label: 'Highest answer threshold',
      help: 'How many times an answer must have been said before the bot uses it (drawn between 1 and this by the weights). Applies at once.',
    },
    CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: {
      label: 'Threshold weights',
      help: 'Weights of the thresholds from 1 up, comma-separated, e.g. 7,23,70.',
    },
    CHORUS_REPEATER_CROSS_GROUP_THRESHOLD: {
      label: 'Cross-group threshold',
      help: 'In how many other groups an answer must appear before it is used here.',
    },
    CHORUS_REPEATER_REPEAT_THRESHOLD: {
      label: 'Repeat threshold',
      help: 'Identical human messages in a row before the bot joins in once; below 2 never repeats.',
    },
    CHORUS_REPEATER_SPLIT_PROBABILITY: {
      label: 'Chance to split',
      help: 'Chance (0 to 1) that a reply with one to three full-width commas goes out as several messages.',
    },
    CHORUS_REPEATER_COOLDOWN_SEC: {
      label: 'Quiet time after a reply',
      help: 'Seconds the bot stays quiet in a group after replying there.',
    },
    CHORUS_REPEATER_REPLY_DELAY_SEC: {
      label: 'Wait before replying',
      help: 'Random wait in seconds before a reply, as min-max, e.g. 2-5.',
    },
    CHORUS_REPEATER_SPLIT_DELAY_SEC: {
      label: 'Wait between parts',
      help: 'Random wait in seconds between the parts of a split reply, as min-max.',
    },
    CHORUS_REPEATER_BUNDLE_TIMEOUT_SEC: {
      label: 'Longest lookup wait',
      help: 'Seconds a reply lookup may take before the message goes unanswered; 0 waits without bound.',
    },
    CHORUS_REPEATER_BUNDLE_CACHE_SEC: {
      label: 'Reuse found answers for',
      help: 'Seconds an answer found for a message is reused for the same message in the group; 0 never reuses.',
    },
    CHORUS_REPEATER_DECISION_LOG_DAYS: {
      label: 'Keep Why decisions for (days)',
      help: 'Days the reply decisions of the Why page are kept in the database (they survive a restart); older ones are removed in small steps.',
    },
    CHORUS_REPEATER_DECISION_LOG_MAX_ROWS: {
      label: 'Most Why decisions kept',
      help: 'The most reply decisions kept; past it the oldest go first.',
    },
    CHORUS_CORPUS_WITHDRAWN_POLL_SEC: {
      label: 'Check community withdrawals every (s)',
      help: 'Seconds between asking the hub which answers it withdrew; copies imported from the community are then removed here (what this bot learned in its groups stays).',
    },
    CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC: {
      label: 'Remember misses for',
      help: 'Seconds a message with no answer is not looked up again in its group; 0 always looks.',
    },
    CHORUS_REPEATER_MAINTENANCE_HOUR: {
      label: 'Daily maintenance hour',
      help: 'Local hour (0–23) of the daily library cleanup and block-list save; primary process only.',
    },
    CHORUS_REPEATER_PROACTIVE_ENABLED: {
      label: 'Talk first when a group goes quiet',
      help: 'After a silence the bot says a line the group itself said lately. Applies to groups without their own switch (Groups page).',
    },
    CHORUS_REPEATER_PROACTIVE_FACTOR: {
      label: 'Quiet factor',
      help: 'A group counts as quiet after its average message interval times this, plus the floor.',
    },
    CHORUS_REPEATER_PROACTIVE_FLOOR_SEC: {
      label: 'Quiet floor',
      help: 'Seconds of silence added to the scaled average interval before a group counts as quiet.',
    },
    CHORUS_REPEATER_PROACTIVE_CHECK_SEC: {
      label: 'Quiet check interval',
      help: 'How often, in seconds, the quiet groups are looked for.',
    },
    CHORUS_REPEATER_PROACTIVE_POKE_PROBABILITY: {
      label: 'Poke after talking first',
      help: 'Chance (0 to 1) that the bot pokes a member who spoke lately after a proactive line; 0 never does.',
    },
    CHORUS_REPEATER_BAN_ACK: {
      label: 'Answer to a block',
      help: 'What the bot says after someone blocks one of its replies; empty says nothing.',
    },
    LLM_CORPUS_LEARN_GUARD_ENABLED: {
      label: 'Learning filter',
      help: "Messages containing a polluting phrase below are not learned (keeps the bot's own AI phrases out).",
    },
    LLM_CORPUS_LEARN_GUARD_PHRASES: {
      label: 'Polluting phrases',
      help: 'A message containing any of these is not learned.',
    },
    CHORUS_AGENT_CATCHPHRASES_SHARED: {
      label: "Catchphrases from the community's answers too",
      help: "Besides what the group said, mine the community's shared answers for catchphrase candidates (still used only once approved in the console). Off by default.",
    },
    LLM_CORPUS_LEARN_GUARD_EXEMPT: {
      label: 'Exempt phrases',
      help: 'A message containing any of these is learned even with a polluting phrase.',
    },
    LLM_CORPUS_CLEANUP_SCHEDULED: {
      label: 'Clean up regularly',
      help: 'Regularly delete learned phrases that contain a polluting phrase.',
    },
    LLM_CORPUS_CLEANUP_INTERVAL_SEC: {
      label: 'Cleanup interval',
      help: 'Seconds between cleanup rounds (the first runs 300 s after start).',
    },
    LLM_CORPUS_CLEANUP_MAX_DELETE_PER_ROUND: {
      label: 'Most deleted per round',
      help: 'Polluted phrases deleted per round at most (chat-log rows separately, same limit).',
    },
    CHORUS_ONEBOT_ACCESS_TOKEN: {
      label: 'OneBot access token',
      help: 'The token NapCat or another OneBot implementation must present; empty accepts any connection.',
    },
    CHORUS_ONEBOT_ACTION_TIMEOUT_SEC: {
      label: 'Action timeout',
      help: 'Seconds to wait for the answer to an action (send, recall, fetch a message).',
    },
    CHORUS_ONEBOT_PING_INTERVAL_SEC: {
      label: 'Liveness ping interval',
      help: 'Seconds between WebSocket pings to each connection, to find dead ones; 0 sends none.',
    },
    CHORUS_ONEBOT_PONG_TIMEOUT_SEC: {
      label: 'Ping answer deadline',
      help: 'A ping unanswered for this many seconds marks the account offline and closes its connection.',
    },
    CHORUS_ONEBOT_HEARTBEAT_MISSED_MAX: {
      label: 'Heartbeats that may be missed',
      help: 'When the implementation announces a heartbeat interval: this many intervals without one mark the account offline and close its connection.',
    },
    CHORUS_ONEBOT_CONNECT: {
      label: 'Forward WebSocket addresses',
      help: 'OneBot WebSocket servers Chorus dials (SnowLuma, for example), comma-separated, the token in ?access_token=; also added and removed on the Bots page.',
    },
    CHORUS_MILKY_CONNECT: {
      label: 'Milky addresses',
      help: 'Milky implementations Chorus dials (Lagrange.Milky, LLBot), comma-separated: http://host:port?access_token=TOKEN. A save applies at once.',
    },
    CHORUS_ONEBOT_MEDIA_CACHE_MB: {
      label: 'Picture cache (MB)',
      help: 'Learned pictures kept in data/media so they can be sent again once the implementation forgot them (least recently used removed first); 0 keeps none.',
    },
    CHORUS_ONEBOT_MEDIA_PICTURE_MAX_KB: {
      label: 'Largest picture (KB)',
      help: 'Largest picture kept in the cache, in kilobytes; larger ones are not kept.',
    },
    CHORUS_COMMUNITY_STATS_ENABLED: {
      label: 'Report to the community hub',
      help: 'Send a heartbeat (anonymous figures) to the hub and allow automatic enrollment.',
    },
    CHORUS_COMMUNITY_STATS_ENDPOINT: {
      label: 'Heartbeat address',
      help: 'The hub heartbeat URL, e.g. http://127.0.0.1:8099/v1/heartbeat; empty means no hub.',
    },
    CHORUS_COMMUNITY_STATS_INTERVAL_SEC: { label: 'Heartbeat interval', help: 'Seconds between heartbeats.' },
    CHORUS_COMMUNITY_STATS_CORPUS_HOT_SNAPSHOT_INTERVAL_SEC: {
      label: 'Hot-word snapshot interval',
      help: 'Seconds between hot-word snapshots sent with the heartbeat (only while sharing).',
    },
    CHORUS_COMMUNITY_STATS_TOKEN: {
      label: 'Reporting token',
      help: 'Optional token sent with heartbeats and enrollment.',
    },
    CHORUS_CONSOLE_TOKEN: {
      label: 'Read token',
      help: 'Token to sign in and look (8–512 printable characters); empty uses the token made at first start.',
    },
    CHORUS_CONSOLE_WRITE_TOKEN: {
      label: 'Write token',
      help: 'Token that may change things; must differ from the read token. Empty lets the read token write.',
    },
    CHORUS_CONSOLE_LOGIN_MAX_FAILURES: {
      label: 'Failed sign-ins allowed',
      help: 'Failed sign-ins per address within the window before it is refused for a while.',
    },
    CHORUS_CONSOLE_LOGIN_WINDOW_SEC: {
      label: 'Sign-in limit window',
      help: 'Length of the window failed sign-ins are counted in, in seconds.',
    },
    CHORUS_HOST: {
      label: 'Listen address',
      help: 'Address the console and OneBot endpoint listen on; 127.0.0.1 allows this machine only. A save applies at once.',
    },
    CHORUS_PORT: { label: 'Port', help: 'Port the console and OneBot endpoint listen on. A save applies at once.' },
    CHORUS_TRUST_PROXY: {
      label: 'Trusted reverse proxies',
      help: 'Proxies whose forwarding headers are believed (addresses, ranges or loopback); empty trusts none. A save applies at once.',
    },
    CHORUS_BASE_URL: {
      label: 'Console path',
      help: 'Path prefix of the console address; "/" puts it at the root. A save applies at once.',
    },
    CHORUS_SHARD_ROLE: {
      label: 'Process role',
      help: 'A worker shares the database but runs no scheduled jobs (upload, enrollment, heartbeat, cleanup). A save applies at once.',
    },
    CHORUS_LOG_LEVEL: { label: 'Log level', help: 'Lines below this level are not logged. Applies at once.' },
    CHORUS_LOG_FORMAT: {
      label: 'Log format',
      help: 'Standard output as JSON lines or readable coloured lines; Automatic colours on a terminal only. Applies at once.',
    },
    CHORUS_LOG_CHAT: {
      label: 'Chat in the log',
      help: "Whether group messages received and the bot's replies are logged (info). Console only shows them in the console's live log; with standard output too, QQ numbers are hidden there. Applies at once.",
    },
    CHORUS_DATA_DIR: {
      label: 'Data folder',
      help: 'Folder of the SQLite database and state files (relative to the project folder). Set it in the environment or a config file only.',
    },
    CHORUS_DATABASE_URL: {
      label: 'Database address',
      help: 'Empty for SQLite in the data folder, or a postgres:// address to share one PostgreSQL. A save applies at once.',
    },
    CHORUS_DATABASE_POOL_MAX: {
      label: 'Database connections',
      help: 'Most PostgreSQL connections of this process. A save applies at once.',
    },
    CHORUS_FLEET_CLAIMS: {
      label: 'Claim messages across processes',
      help: 'Processes sharing a database learn a group message once and answer it at most once. Automatic turns on with PostgreSQL when another process is connected. A save applies at once.',
    },
    CHORUS_CORPUS_REMOTE_MAX_CONCURRENT: {
      label: 'Community requests at once',
      help: 'Community requests in flight at the same time.',
    },
    CHORUS_CORPUS_REMOTE_TIMEOUT_SEC: {
      label: 'Community lookup timeout',
      help: 'Seconds a community lookup may take.',
    },
    CHORUS_CORPUS_CONTRIBUTE_TIMEOUT_SEC: {
      label: 'Community sharing timeout',
      help: 'Seconds a contribution to the community may take.',
    },
    CHORUS_CORPUS_USAGE_CACHE_SEC: {
      label: 'Community usage cache',
      help: 'Seconds the community usage figures are kept.',
    },
  },
};
