// The community hub's moderation page (`chorus hub` serves it at /admin/; docs/hub.md#moderation).
import { createApp } from 'vue';
import { createI18n } from 'vue-i18n';
import { hubAdminMessages } from '../locales/hub-admin';
import HubAdmin from './HubAdmin.vue';

const saved = localStorage.getItem('chorus.locale');
const i18n = createI18n({
  legacy: false,
  locale: saved === 'en' ? 'en' : 'zh',
  fallbackLocale: 'zh',
  messages: hubAdminMessages,
});
createApp(HubAdmin).use(i18n).mount('#app');
