/** Who is logged in, and at which level (GET /api/auth/status); write controls read `canWrite`. */
import { computed, reactive } from 'vue';
import { call, client } from './api';

export const session = reactive({
  known: false,
  authenticated: false,
  level: null as 'read' | 'write' | null,
});

export const canWrite = computed(() => session.level === 'write');

export async function refreshSession(): Promise<void> {
  const status = await call(client.GET('/auth/status'));
  session.known = true;
  session.authenticated = status.authenticated;
  session.level = status.level ?? null;
}

export async function logout(): Promise<void> {
  await client.POST('/auth/logout').catch(() => undefined);
  session.authenticated = false;
  session.level = null;
}
