import { createApp } from 'vue';
import App from './App.vue';
import { i18n, initialLocale, setLocale } from './i18n';
import { router } from './router';

// The words of the language in use come first: the first screen shows no key.
await setLocale(initialLocale());
createApp(App).use(i18n).use(router).mount('#app');
