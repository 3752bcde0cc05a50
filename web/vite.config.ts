// The console SPA. Asset URLs are relative ('./'), so one build serves under any base path:
// `chorus serve` rewrites index.html's `./assets/` and its `chorus-base` meta to the configured
// base (web/README.md).
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';
import { precompress } from './precompress.ts';

const target = process.env.CHORUS_DEV_TARGET ?? 'http://127.0.0.1:8088';

export default defineConfig({
  root: import.meta.dirname,
  base: './',
  plugins: [vue(), precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 900,
    rollupOptions: {
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
