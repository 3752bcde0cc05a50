/**
 * After POST /service/restart: asks GET /service until another run answers (its started_at_ms
 * differs). While the service is down the requests fail; that is the wait, not an error.
 */
import { client } from '../api';

const POLL_MS = 1000;
const GIVE_UP_MS = 120_000;

export async function waitForRestart(previousStartedAtMs: number): Promise<void> {
  const deadline = Date.now() + GIVE_UP_MS;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    try {
      const { data } = await client.GET('/service');
      if (data?.ok && data.data.started_at_ms !== previousStartedAtMs) return;
    } catch {
      // Down or restarting: ask again.
    }
  }
  throw new Error('restart_timeout');
}
