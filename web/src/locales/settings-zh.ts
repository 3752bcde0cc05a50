// 设置页的文字（中文）：每个配置项的名称与说明，按配置键（环境变量名）查找；与 settings-en.ts 一一对应。
// 只有设置页载入它（web/src/pages/SettingsPage.vue），首屏不带这些文字。
export default {
  sections: {
    core: '回复语料与社区共享',
    repeater: '复读与回复',
    onebot: '连接 QQ（OneBot）',
    console: '控制台登录',
    community_stats: '社区统计上报',
    server: '服务地址',
    logging: '日志',
    storage: '数据与数据库',
    remote_budget: '社区请求限额',
    language_model: '语言模型',
  },
  groups: {
    sources: '语料来源',
    community: '社区共享语料',
    history_backfill: '历史语料上传',
    reply_performance: '回复速度与缓存',
    persona: '称呼与身份',
    reply: '何时回复',
    pacing: '节奏',
    proactive_speech: '冷场时主动说话',
    performance: '查找速度',
    maintenance: '每日维护',
    catchphrases: '口头禅',
    learning_guard: '学习过滤',
    contamination_cleanup: '污染清理',
    onebot: '连接',
    milky: 'Milky',
    community_statistics: '社区统计',
    console_access: '登录与令牌',
    http: '网络地址',
    scaling: '多进程',
    logging: '日志',
    storage: '存储',
    remote_budget: '社区请求',
    model_provider: '模型服务',
    model_bounds: '调用限额',
  },
  sources: {
    default: '默认',
    env: '环境变量',
    dotenv: '环境变量（.env 文件）',
    toml: '配置文件（chorus.toml）',
    console: '控制台',
  },
  choices: {
    auto: '自动',
    true: '开启',
    false: '关闭',
    'local,community': '先本地，再社区',
    local: '只用本地',
    local_first: '本地有答案就用本地',
    merge_counts: '合并各来源的次数',
    prefetch: '未命中后在后台预取',
    sync: '回复时同步查询',
    primary: '主进程',
    worker: '工作进程',
    trace: '追踪（最详细）',
    debug: '调试',
    info: '信息',
    warn: '警告',
    error: '错误',
    fatal: '致命',
    json: 'JSON 行',
    pretty: '易读彩色',
    console: '只进控制台',
    all: '控制台和标准输出',
    off: '不记录',
  },
  fields: {
    CHORUS_LLM_BASE_URL: {
      label: '模型接口地址',
      help: '兼容 OpenAI 对话接口的服务地址，例如 DeepSeek 的 https://api.deepseek.com/v1，或本机 Ollama 的 http://127.0.0.1:11434/v1。留空则完全不使用语言模型。',
    },
    CHORUS_LLM_API_KEY: {
      label: '模型密钥',
      help: '发给模型服务的密钥（不会显示或写入日志）。本机模型不需要，可留空。',
    },
    CHORUS_LLM_MODEL: { label: '聊天模型', help: '被叫到时用来回答群友的模型，填写模型服务给出的模型名。' },
    CHORUS_LLM_BACKGROUND_MODEL: {
      label: '后台模型',
      help: '整理记忆、挖掘口头禅等后台工作用的模型；留空则与聊天模型相同。',
    },
    CHORUS_LLM_TEMPERATURE: { label: '温度', help: '回答的随机程度，0 最稳定，越大越发散。' },
    CHORUS_LLM_TIMEOUT_SEC: { label: '回复时限', help: '等待模型回答的最长秒数，超时就放弃，机器人不说话。' },
    CHORUS_LLM_CONCURRENCY: { label: '同时调用上限', help: '同时进行的模型调用最多几个；超过时这条消息不用模型回答。' },
    CHORUS_LLM_GROUP_DAILY_CALLS: { label: '每群每天调用次数', help: '每个群每天最多调用模型几次；0 表示不限。' },
    CHORUS_LLM_GROUP_DAILY_TOKENS: {
      label: '每群每天令牌数',
      help: '每个群每天最多用掉多少令牌（提问加回答）；0 表示不限。',
    },
    CHORUS_LLM_MEMBER_DAILY_CALLS: {
      label: '每人每天调用次数',
      help: '每位群友每天最多引起几次模型调用；0 表示不限。',
    },
    CHORUS_LLM_MEMBER_DAILY_TOKENS: { label: '每人每天令牌数', help: '每位群友每天最多用掉多少令牌；0 表示不限。' },
    CHORUS_LLM_UNAVAILABLE_LINE: {
      label: '模型不可用时的提示语',
      help: '额度用完或模型没有回答时机器人说的话（每群十分钟最多一次）；留空则保持沉默。',
    },
    CHORUS_LLM_SILENCE_RATE: {
      label: '代替沉默的比例',
      help: '在设为「没人叫也偶尔回答」的群里，复读机没有答案的消息有多大概率改用模型回答（0 到 1）。',
    },
    CHORUS_CORPUS_MERGE_ORDER: {
      label: '语料查找顺序',
      help: '回复时先查哪个语料库。「只用本地」不再向社区查询。保存后立即生效。',
    },
    CHORUS_CORPUS_MERGE_STRATEGY: {
      label: '多个来源怎么合并',
      help: '本地已有答案时是否还合并社区的答案次数。保存后立即生效。',
    },
    CHORUS_CORPUS_COMMUNITY_ENABLED: {
      label: '使用社区共享语料',
      help: '总开关：是否连接社区共享语料库。「自动」跟随是否已登记。保存后立即生效。',
    },
    CHORUS_CORPUS_AUTO_ENROLL: {
      label: '自动登记到社区',
      help: '启动后自动向社区中心登记并领取令牌。「自动」在使用社区语料时登记。',
    },
    CHORUS_CORPUS_COMMUNITY_CONTRIBUTE: {
      label: '贡献新学到的语料',
      help: '把新学到的句子分享给社区。只有「关闭」才会停止贡献。',
    },
    CHORUS_CORPUS_COMMUNITY_API_BASE: {
      label: '社区接口地址',
      help: '手动指定社区语料接口，多个用英文逗号分隔，失败时依次尝试。留空使用登记得到的地址。',
    },
    CHORUS_CORPUS_COMMUNITY_TOKEN: { label: '社区令牌', help: '手动指定访问社区语料的令牌。留空使用登记得到的令牌。' },
    CHORUS_CORPUS_REMOTE_FIND_ENABLED: {
      label: '回复时查询社区',
      help: '本地没有答案时是否查社区：关闭、未命中后后台预取（下次可用），或回复时同步等待。',
    },
    CHORUS_CORPUS_BACKFILL_ENABLED: { label: '上传历史语料', help: '在后台把本地已有的语料慢慢上传到社区语料库。' },
    CHORUS_CORPUS_BACKFILL_MAX_PER_MINUTE: { label: '每分钟最多上传', help: '历史上传的速度上限，单位：条/分钟。' },
    CHORUS_CORPUS_BACKFILL_BATCH_SIZE: { label: '每轮读取条数', help: '每轮上传从本地读取多少条语境。' },
    CHORUS_CORPUS_BACKFILL_INTERVAL_SEC: { label: '上传间隔', help: '两轮历史上传之间等待的秒数。' },
    CHORUS_CORPUS_REPLY_MESSAGES_CAP: {
      label: '每个答案载入的消息数',
      help: '回复快照里每个答案最多载入的最新消息条数。',
    },
    CHORUS_CORPUS_REPLY_ANSWERS_CAP: {
      label: '每个语境载入的答案数',
      help: '回复快照里每个语境最多载入的热门答案数。',
    },
    CHORUS_CORPUS_FIND_CACHE_SEC: {
      label: '查找结果缓存时长',
      help: '一次查找的结果（命中或未命中）保留多少秒。越长越省数据库，但新学的句子生效越慢。',
    },
    CHORUS_CORPUS_FIND_CACHE_MAX: { label: '查找缓存容量', help: '查找缓存最多保留的条目数，超出后清理。' },
    CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: { label: '回复快照缓存时长', help: '本地回复快照保留多少秒。' },
    CHORUS_CORPUS_REPLY_SNAPSHOT_MAX: {
      label: '回复快照缓存容量',
      help: '回复快照缓存最多保留的条目数，超出后淘汰最久未用的。',
    },
    CHORUS_CORPUS_REPLY_QUERY_TIMEOUT_SEC: {
      label: '快照查询超时',
      help: '回复等待数据库查询的最长秒数，超时这条消息就不回复。',
    },
    CHORUS_REPEATER_NICKNAMES: { label: '机器人的称呼', help: '消息以这些名字开头时算作在叫机器人（不区分大小写）。' },
    CHORUS_REPEATER_IGNORE_USER_IDS: {
      label: '忽略的 QQ 号',
      help: '这些 QQ 号（例如其他机器人）的消息不学习，也不算作真人复读。',
    },
    CHORUS_REPEATER_ANSWER_THRESHOLD: {
      label: '答案最高门槛',
      help: '一个答案至少被说过几次机器人才会用它（实际门槛按下面的权重在 1 到此值间抽取）。立即生效。',
    },
    CHORUS_REPEATER_ANSWER_THRESHOLD_WEIGHTS: {
      label: '门槛权重',
      help: '从 1 到最高门槛各门槛被抽中的权重，用英文逗号分隔，例如 7,23,70。',
    },
    CHORUS_REPEATER_CROSS_GROUP_THRESHOLD: {
      label: '跨群门槛',
      help: '一个答案要在多少个其他群出现过，才会在本群使用。',
    },
    CHORUS_REPEATER_REPEAT_THRESHOLD: {
      label: '复读门槛',
      help: '群里连续多少条相同的真人消息后，机器人跟着复读一次；小于 2 表示不复读。',
    },
    CHORUS_REPEATER_SPLIT_PROBABILITY: {
      label: '分条发送概率',
      help: '含一到三个全角逗号的回复被拆成几条发送的概率，0 到 1 之间。',
    },
    CHORUS_REPEATER_COOLDOWN_SEC: { label: '回复后冷却', help: '机器人在一个群回复后，安静多少秒再回复。单位：秒。' },
    CHORUS_REPEATER_REPLY_DELAY_SEC: {
      label: '回复前等待',
      help: '发出回复前随机等待的秒数，写作「最少-最多」，例如 2-5。',
    },
    CHORUS_REPEATER_SPLIT_DELAY_SEC: {
      label: '分条之间等待',
      help: '分条发送时每条之间随机等待的秒数，写作「最少-最多」。',
    },
    CHORUS_REPEATER_BUNDLE_TIMEOUT_SEC: {
      label: '查找答案的最长等待',
      help: '查找答案最多等多少秒，超时这条消息不回复；0 表示一直等。',
    },
    CHORUS_REPEATER_BUNDLE_CACHE_SEC: {
      label: '答案复用时长',
      help: '同一群里同一句话找到的答案在多少秒内直接复用；0 表示不复用。',
    },
    CHORUS_REPEATER_DECISION_LOG_DAYS: {
      label: '「为什么」保留天数',
      help: '「为什么」页的回复决策在数据库里保留多少天，重启后仍在；更早的分批删除。',
    },
    CHORUS_REPEATER_DECISION_LOG_MAX_ROWS: {
      label: '「为什么」最多保留条数',
      help: '回复决策最多保留多少条，超出时先删最早的。',
    },
    CHORUS_CORPUS_WITHDRAWN_POLL_SEC: {
      label: '检查社区撤回的间隔（秒）',
      help: '每隔多少秒向社区询问被撤回的回答，并删除本机从社区导入的副本（本机在群里学到的不删）。',
    },
    CHORUS_REPEATER_BUNDLE_NEGATIVE_CACHE_SEC: {
      label: '无答案记忆时长',
      help: '一句话没找到答案后，多少秒内不再为它查找；0 表示每次都查。',
    },
    CHORUS_REPEATER_MAINTENANCE_HOUR: {
      label: '每日维护时刻',
      help: '每天几点（本地时间，0–23）清理语料并保存屏蔽列表；只在主进程运行。',
    },
    CHORUS_REPEATER_PROACTIVE_ENABLED: {
      label: '冷场时主动说话',
      help: '群里安静下来后，机器人主动说一句群友最近说过的话。对没有单独设置的群生效；每个群可在「群组」页单独开关。',
    },
    CHORUS_REPEATER_PROACTIVE_FACTOR: {
      label: '冷场倍数',
      help: '群的平均发言间隔乘以这个倍数，再加上最短冷场时间，就是算作冷场的安静时长。',
    },
    CHORUS_REPEATER_PROACTIVE_FLOOR_SEC: {
      label: '最短冷场时间',
      help: '算作冷场前至少要安静的秒数（加在平均间隔乘以倍数之上）。单位：秒。',
    },
    CHORUS_REPEATER_PROACTIVE_CHECK_SEC: {
      label: '冷场检查间隔',
      help: '每隔多少秒检查一次哪些群冷场了。单位：秒。',
    },
    CHORUS_REPEATER_PROACTIVE_POKE_PROBABILITY: {
      label: '主动说话后戳一戳',
      help: '主动说话之后，戳一下最近发言的一位群友的概率（0 到 1；0 表示从不）。',
    },
    CHORUS_REPEATER_BAN_ACK: {
      label: '屏蔽后的回应',
      help: '有人屏蔽了机器人的一句回复后，机器人说的话；留空则不说。',
    },
    LLM_CORPUS_LEARN_GUARD_ENABLED: {
      label: '学习过滤',
      help: '含下面污染词的消息不学习，避免机器人学到自己 AI 回复里的句子。',
    },
    LLM_CORPUS_LEARN_GUARD_PHRASES: { label: '污染词', help: '消息里含有其中任何一个就不学习。' },
    CHORUS_AGENT_CATCHPHRASES_SHARED: {
      label: '口头禅也取自社区语料',
      help: '除了本群学到的话，也从社区共享的回答里挖掘口头禅候选（仍需在控制台采用后才会使用）。默认关闭。',
    },
    LLM_CORPUS_LEARN_GUARD_EXEMPT: { label: '豁免词', help: '消息里含有其中任何一个时，即使也含污染词仍然学习。' },
    LLM_CORPUS_CLEANUP_SCHEDULED: { label: '定期清理污染', help: '定期删除已学到的含污染词的语料。' },
    LLM_CORPUS_CLEANUP_INTERVAL_SEC: { label: '清理间隔', help: '两轮清理之间的秒数（启动后 300 秒第一次清理）。' },
    LLM_CORPUS_CLEANUP_MAX_DELETE_PER_ROUND: {
      label: '每轮最多删除',
      help: '每轮最多删除的污染语料条数（聊天记录另计同样上限）。',
    },
    CHORUS_ONEBOT_ACCESS_TOKEN: {
      label: 'OneBot 访问令牌',
      help: 'NapCat 等 OneBot 实现连接时必须带的令牌；留空则接受任何连接。',
    },
    CHORUS_ONEBOT_ACTION_TIMEOUT_SEC: { label: '动作超时', help: '发送、撤回、获取消息等动作等待回应的最长秒数。' },
    CHORUS_ONEBOT_PING_INTERVAL_SEC: {
      label: '存活探测间隔',
      help: '每隔多少秒向每条连接发送一次探测帧，检查连接是否还活着；0 表示不发送。',
    },
    CHORUS_ONEBOT_PONG_TIMEOUT_SEC: {
      label: '探测应答时限',
      help: '探测帧发出后这么多秒仍无应答，就把账号判为离线并断开它的连接。',
    },
    CHORUS_ONEBOT_HEARTBEAT_MISSED_MAX: {
      label: '允许错过的心跳',
      help: '实现声明了心跳间隔时，连续这么多个间隔收不到心跳，就把账号判为离线并断开连接。',
    },
    CHORUS_ONEBOT_CONNECT: {
      label: '正向 WebSocket 地址',
      help: 'Chorus 主动连接的 OneBot WebSocket 服务端（如 SnowLuma），多个用英文逗号分隔，令牌写在地址的查询参数里；也可在机器人页面添加或移除。',
    },
    CHORUS_MILKY_CONNECT: {
      label: 'Milky 连接地址',
      help: 'Chorus 主动连接的 Milky 实现（Lagrange.Milky、LLBot），多个用逗号分隔：http://主机:端口?access_token=令牌。保存后立即生效。',
    },
    CHORUS_ONEBOT_MEDIA_CACHE_MB: {
      label: '图片缓存容量（兆字节）',
      help: '在数据目录中保存学到的图片，OneBot 实现忘记图片后仍可重新发送（最久未用的先删除）；0 表示不保存。',
    },
    CHORUS_ONEBOT_MEDIA_PICTURE_MAX_KB: {
      label: '单张图片上限（千字节）',
      help: '缓存的单张图片最大千字节数，更大的图片不保存。',
    },
    CHORUS_COMMUNITY_STATS_ENABLED: {
      label: '向社区中心上报',
      help: '定时向社区中心发送心跳（匿名统计），并允许自动登记共享语料。',
    },
    CHORUS_COMMUNITY_STATS_ENDPOINT: {
      label: '心跳地址',
      help: '社区中心的心跳网址，例如 http://127.0.0.1:8099/v1/heartbeat；留空表示没有社区中心。',
    },
    CHORUS_COMMUNITY_STATS_INTERVAL_SEC: { label: '心跳间隔', help: '两次心跳之间的秒数。' },
    CHORUS_COMMUNITY_STATS_CORPUS_HOT_SNAPSHOT_INTERVAL_SEC: {
      label: '热词快照间隔',
      help: '随心跳附带热词快照的最短间隔秒数（仅在贡献语料时）。',
    },
    CHORUS_COMMUNITY_STATS_TOKEN: { label: '上报令牌', help: '心跳和登记请求附带的令牌（可选）。' },
    CHORUS_CONSOLE_TOKEN: {
      label: '只读令牌',
      help: '登录控制台查看用的令牌（8–512 个可打印字符）；留空使用首次启动时生成的令牌。',
    },
    CHORUS_CONSOLE_WRITE_TOKEN: {
      label: '写入令牌',
      help: '可以修改设置的令牌，必须与只读令牌不同；留空时只读令牌也能修改。',
    },
    CHORUS_CONSOLE_LOGIN_MAX_FAILURES: {
      label: '登录失败上限',
      help: '同一地址在一个时间窗内允许的登录失败次数，超出后暂时拒绝。',
    },
    CHORUS_CONSOLE_LOGIN_WINDOW_SEC: { label: '登录限制时间窗', help: '计算登录失败次数的时间窗长度，单位：秒。' },
    CHORUS_HOST: { label: '监听地址', help: '控制台和 OneBot 接入监听的地址；127.0.0.1 只允许本机访问。重启后生效。' },
    CHORUS_PORT: { label: '端口', help: '控制台和 OneBot 接入监听的端口。重启后生效。' },
    CHORUS_TRUST_PROXY: {
      label: '信任的反向代理',
      help: '信任其转发头的代理地址或网段（如 loopback）；留空表示不信任任何代理。重启后生效。',
    },
    CHORUS_BASE_URL: { label: '控制台路径', help: '控制台网址的路径前缀，「/」表示放在根路径。重启后生效。' },
    CHORUS_SHARD_ROLE: {
      label: '进程角色',
      help: '工作进程共用数据库，但不跑定时任务（上传、登记、心跳、清理）。重启后生效。',
    },
    CHORUS_LOG_LEVEL: { label: '日志级别', help: '低于这个级别的日志不记录。立即生效。' },
    CHORUS_LOG_FORMAT: {
      label: '日志格式',
      help: '标准输出的日志写成 JSON 行还是易读的彩色行；「自动」只在终端里用彩色。立即生效。',
    },
    CHORUS_LOG_CHAT: {
      label: '聊天写入日志',
      help: '收到的群消息和机器人的回复是否写进日志（信息级）。「只进控制台」只在控制台的实时日志里显示；「控制台和标准输出」在标准输出里隐去 QQ 号。立即生效。',
    },
    CHORUS_DATA_DIR: {
      label: '数据文件夹',
      help: 'SQLite 数据库和状态文件所在的文件夹（相对于项目文件夹）。只能在环境变量或配置文件里修改。',
    },
    CHORUS_DATABASE_URL: {
      label: '数据库地址',
      help: '留空使用数据文件夹里的 SQLite；填写 postgres:// 地址则共用一个 PostgreSQL。重启后生效。',
    },
    CHORUS_DATABASE_POOL_MAX: { label: '数据库连接数', help: '本进程连接 PostgreSQL 的最大连接数。重启后生效。' },
    CHORUS_FLEET_CLAIMS: {
      label: '多进程认领消息',
      help: '多个进程共用数据库时，同一条群消息只学习一次、最多回复一次。「自动」在 PostgreSQL 上有其他进程时开启。重启后生效。',
    },
    CHORUS_CORPUS_REMOTE_MAX_CONCURRENT: { label: '同时进行的社区请求', help: '同一时间最多进行的社区请求数。' },
    CHORUS_CORPUS_REMOTE_TIMEOUT_SEC: { label: '社区查询超时', help: '一次社区查询最多等待的秒数。' },
    CHORUS_CORPUS_CONTRIBUTE_TIMEOUT_SEC: { label: '社区贡献超时', help: '一次向社区贡献语料最多等待的秒数。' },
    CHORUS_CORPUS_USAGE_CACHE_SEC: { label: '社区用量缓存', help: '社区用量数据缓存多少秒。' },
  },
};
