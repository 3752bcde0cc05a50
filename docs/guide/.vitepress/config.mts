// The operator's guide as a static site (`npm run docs:build`, `npm run docs:dev`). The pages are
// plain Markdown that reads the same on the repository's web page; this only adds the navigation.
import { defineConfig } from 'vitepress';

export default defineConfig({
  title: 'Chorus',
  description: "Chorus, a group-chat corpus bot for QQ: the operator's guide",
  lang: 'en',
  cleanUrls: true,
  // Links that leave the guide (the README, developer pages) are checked by `npm run docs:check`,
  // which knows the whole repository; the site itself only holds the guide.
  ignoreDeadLinks: [/(^|\/)\.\.\//],
  themeConfig: {
    nav: [{ text: 'Guide', link: '/' }],
    sidebar: [
      {
        text: 'Operating Chorus',
        items: [
          { text: 'Running Chorus', link: '/running' },
          { text: 'Running in a container', link: '/container' },
          { text: 'Connecting accounts', link: '/connecting' },
          { text: 'The console', link: '/console' },
          { text: 'Groups and moderation', link: '/groups' },
          { text: 'Community hub', link: '/community' },
          { text: 'Backups and moving', link: '/backups' },
          { text: 'Updates', link: '/updates' },
          { text: 'Several processes', link: '/fleet' },
          { text: 'Talking with a language model', link: '/language-model' },
          { text: 'AI extension', link: '/ai-extension' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'Configuration', link: '/configuration' },
          { text: 'Configuration reference', link: '/reference' },
          { text: 'Why is it silent?', link: '/troubleshooting' },
        ],
      },
    ],
    search: { provider: 'local' },
  },
});
