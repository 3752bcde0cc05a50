// The community hub's moderation page (`chorus hub` serves it at /admin/; docs/hub.md#moderation).
import { createApp } from 'vue';
import { createI18n } from 'vue-i18n';
import { hubAdminMessages } from '../locales/hub-admin';
import { compileMessage } from '../message-compiler';
import HubAdmin from './HubAdmin.vue';

const saved = localStorage.getItem('chorus.locale');
const i18n = createI18n({
  legacy: false,
  locale: saved === 'en' ? 'en' : 'zh',
  fallbackLocale: 'zh',
  messages: hubAdminMessages,
  // The build's vue-i18n is runtime-only (web/vite.config.ts): the console's compiler compiles these too.
  messageCompiler: compileMessage,
});
createApp(HubAdmin).use(i18n).mount('#app');
