/**
 * A database restore that restarts Chorus, followed to its end on the page: the service is asked
 * for its start time before the restore, the page waits until another run answers (restart.ts)
 * and then reads the result the restore left (GET /db/backup/info `last_restore`).
 */
import { ref } from 'vue';
import { call, client, describeError } from '../api';
import { waitForRestart } from './restart';

export type RestoreNote =
  | { phase: 'restarting'; name: string }
  | { phase: 'done'; ok: boolean; code: string; name: string; detail: string }
  | { phase: 'lost'; name: string; error: string };

export function useRestoreWatch() {
  const note = ref<RestoreNote | null>(null);

  /** The start time of the running service, asked before a restore that restarts it. */
  const startedAt = async () => (await call(client.GET('/service'))).started_at_ms;

  async function follow(name: string, previousStartedAtMs: number): Promise<void> {
    note.value = { phase: 'restarting', name };
    try {
      await waitForRestart(previousStartedAtMs);
      const result = (await call(client.GET('/db/backup/info'))).last_restore;
      if (!result || result.name !== name) throw new Error('restore_unknown');
      const code = result.code ?? (result.ok ? 'restored' : 'not_restored');
      note.value = { phase: 'done', ok: result.ok, code, name, detail: result.detail };
    } catch (failure) {
      const known = failure instanceof Error && ['restart_timeout', 'restore_unknown'].includes(failure.message);
      note.value = { phase: 'lost', name, error: known ? (failure as Error).message : describeError(failure) };
    }
  }

  return { note, startedAt, follow };
}
