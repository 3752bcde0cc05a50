import { onBeforeUnmount, ref, type Ref } from 'vue';

/** True below 768 px: the menu moves into a drawer and tables become cards. */
export function useNarrow(): Ref<boolean> {
  const query = window.matchMedia('(max-width: 767px)');
  const narrow = ref(query.matches);
  const update = () => (narrow.value = query.matches);
  query.addEventListener('change', update);
  onBeforeUnmount(() => query.removeEventListener('change', update));
  return narrow;
}
