import type { confirmZh } from './confirm.zh';

export const confirmEn: typeof confirmZh = {
  removeForward: {
    title: 'Remove the forward connection?',
    content:
      'Chorus disconnects from {address} and no longer dials it. Accounts connected through it go offline until it is added again.',
  },
  updateBot: {
    title: 'Update the bot?',
    content:
      'Downloads and installs the latest release {version}, replacing the running program files (the old version is kept for a rollback).',
    restart: 'Chorus restarts on its own when done; the bot does not reply meanwhile.',
    noRestart: 'The new version applies at the next restart.',
  },
  updateWeb: {
    title: 'Update the web console?',
    content: 'Downloads and installs web console {version}; reload the page afterwards to use it.',
  },
  applyRef: {
    title: 'Switch to {ref}?',
    content: "Switches the bot's code to {ref} and installs its dependencies (the old version is kept for a rollback).",
  },
  rollback: {
    title: 'Roll the bot back?',
    content: 'Puts the previous version {version} back in place of the current program files.',
  },
  migrate: {
    title: 'Migrate the configuration?',
    content:
      'Rewrites {count} renamed or removed keys in .env and chorus.toml (the files are backed up first); applies at the next restart.',
  },
  aiInstall: {
    title: 'AI extension: {action}?',
    content:
      'Downloads code and dependencies and runs the install script on this machine; it may take minutes and disk space.',
  },
  ncmLogout: {
    title: 'Log out of NetEase Cloud Music?',
    content: 'The AI service logs this NetEase Cloud Music account out; logging in again needs a new SMS code.',
  },
  importCorpus: {
    title: 'Import the corpus?',
    content: 'Merges the contexts and answers in {file} into the corpus; the bot replies with them afterwards.',
  },
  rejectRequest: {
    title: 'Reject the request from {who}?',
    content: 'Their {kind} is rejected and cannot be approved here afterwards.',
  },
  rejectSelected: {
    title: 'Reject the {n} selected requests?',
    content: 'All of them are rejected and cannot be approved here afterwards.',
  },
  disconnect: {
    title: 'Disconnect account {account}?',
    content:
      "Chorus closes this account's connection: the account is offline and the bot does not reply until its OneBot implementation connects again.",
  },
  ignoreGroup: {
    title: 'Ignore group {group}?',
    content:
      'Chorus ignores the messages of this group entirely (no learning, no replies, nothing said first) until it is no longer ignored.',
  },
  banUser: {
    title: 'Ban {user} everywhere?',
    content: 'In every group, {user} is no longer learned from or answered until restored here.',
  },
};
