/** The confirmations before actions with lasting effect (components/confirm.ts): title and what will happen. */
export const confirmZh = {
  removeForward: {
    title: '移除正向连接？',
    content: 'Chorus 会断开 {address}，以后不再连接它。通过它连接的账号会离线，直到重新添加。',
  },
  updateBot: {
    title: '更新机器人？',
    content: '下载并安装最新发布 {version}，替换正在运行的程序文件（原版本保留，可以回滚）。',
    restart: '完成后 Chorus 会自动重启，期间机器人暂时不回复。',
    noRestart: '新版本在下次重启后生效。',
  },
  updateWeb: {
    title: '更新网页控制台？',
    content: '下载并安装网页控制台 {version}，安装后刷新页面即使用新版本。',
  },
  applyRef: {
    title: '切换到 {ref}？',
    content: '把机器人的代码切换到 {ref} 并安装依赖（原版本保留，可以回滚）。',
  },
  rollback: {
    title: '回滚机器人？',
    content: '把机器人换回上一个版本 {version}，当前版本的程序文件被替换。',
  },
  migrate: {
    title: '迁移配置？',
    content: '改写 .env 与 chorus.toml 中 {count} 个已改名或移除的键（先备份原文件），重启后生效。',
  },
  aiInstall: {
    title: 'AI 扩展：{action}？',
    content: '会下载代码和依赖并在这台机器上运行安装脚本，可能需要几分钟并占用磁盘空间。',
  },
  ncmLogout: {
    title: '退出网易云音乐登录？',
    content: 'AI 服务会退出这个网易云音乐账号，之后需要重新用短信验证码登录。',
  },
  importCorpus: {
    title: '导入语料？',
    content: '把 {file} 中的上下文和回答合并进语料库，导入后机器人会用它们回复。',
  },
  rejectRequest: {
    title: '拒绝 {who} 的请求？',
    content: '对方的{kind}会被拒绝，之后不能在这里再同意它。',
  },
  rejectSelected: {
    title: '拒绝所选的 {n} 条请求？',
    content: '这些请求都会被拒绝，之后不能在这里再同意它们。',
  },
  disconnect: {
    title: '断开账号 {account}？',
    content: 'Chorus 会关闭这个账号的连接，账号暂时离线，机器人不回复，直到它的 OneBot 实现重新连上。',
  },
  ignoreGroup: {
    title: '屏蔽群 {group}？',
    content: 'Chorus 会完全忽略这个群的消息：不学习、不回复、不主动说话，直到取消屏蔽。',
  },
  banUser: {
    title: '全局屏蔽 {user}？',
    content: '在所有群里都不再学习 {user} 的发言，也不回复他，直到在这里恢复。',
  },
};
