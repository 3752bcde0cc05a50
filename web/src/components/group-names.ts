/**
 * Group names beside group numbers: the connected accounts' group lists (GET /onebot/bots, then
 * /group-list per account, as the groups page reads them), asked once per page. A group no
 * account is in shows its number alone.
 */
import { ref, type Ref } from 'vue';
import { call, client } from '../api';

export interface GroupNames {
  names: Ref<ReadonlyMap<number, string>>;
  /** The groups the accounts are in, by name. */
  groups: Ref<readonly { id: number; name: string }[]>;
}

export function useGroupNames(): GroupNames {
  const names = ref<ReadonlyMap<number, string>>(new Map());
  const groups = ref<readonly { id: number; name: string }[]>([]);
  void (async () => {
    try {
      const bots = await call(client.GET('/onebot/bots'));
      const lists = await Promise.all(
        bots.map((bot) =>
          call(client.GET('/group-list', { params: { query: { self_id: bot.self_id } } })).catch(() => null),
        ),
      );
      const found = new Map<number, string>();
      for (const list of lists) for (const group of list?.groups ?? []) found.set(group.group_id, group.group_name);
      names.value = found;
      groups.value = [...found].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
    } catch {
      // Names are a help, not a need: without them groups show their numbers.
    }
  })();
  return { names, groups };
}
