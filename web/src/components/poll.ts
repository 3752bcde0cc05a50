import { onBeforeUnmount, onMounted } from 'vue';

/** Runs `load` now and every `ms` while the page is shown (not while the tab is hidden). */
export function usePolling(load: () => Promise<void>, ms: number): void {
  let timer: number | undefined;
  const tick = () => {
    if (document.visibilityState === 'visible') void load();
  };
  onMounted(() => {
    void load();
    timer = window.setInterval(tick, ms);
  });
  onBeforeUnmount(() => window.clearInterval(timer));
}
