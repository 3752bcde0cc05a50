// The console SPA. Asset URLs are relative ('./'), so one build serves under any base path:
// `chorus serve` rewrites index.html's `./assets/` and its `chorus-base` meta to the configured
// base (web/README.md).
import vue from '@vitejs/plugin-vue';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import { precompress } from './precompress.ts';

const target = process.env.CHORUS_DEV_TARGET ?? 'http://127.0.0.1:8088';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [vue(), precompress()],
  resolve: {
    // The runtime-only vue-i18n without its compiler: web/src/message-compiler.ts compiles the
    // console's messages (createI18n's messageCompiler), so the compiler is never called.
    alias: {
      'vue-i18n': 'vue-i18n/dist/vue-i18n.runtime.esm-bundler.js',
      '@intlify/message-compiler': fileURLToPath(new URL('./message-compiler-stub.js', import.meta.url)),
    },
  },
  define: {
    __VUE_I18N_FULL_INSTALL__: 'false',
    __VUE_I18N_LEGACY_API__: 'false',
    __INTLIFY_PROD_DEVTOOLS__: 'false',
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 900,
    rollupOptions: {
      // Two pages from one build: the console, and the hub's moderation page (`chorus hub` serves
      // hub-admin.html at /admin/; docs/hub.md#moderation).
      input: {
        index: `${import.meta.dirname}/index.html`,
        'hub-admin': `${import.meta.dirname}/hub-admin.html`,
      },
      output: {
        manualChunks(id) {
          if (id.includes('node_modules/echarts') || id.includes('node_modules/zrender')) return 'echarts';
          return undefined;
        },
      },
    },
  },
  server: {
    proxy: { '/chorus/api': target, '/onebot': { target, ws: true } },
  },
});
