/** The hub's admin API (`/admin/api`, Bearer CHORUS_HUB_ADMIN_TOKEN); the token lives in sessionStorage. */
const KEY = 'chorus.hub-admin-token';

export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const adminToken = {
  get: (): string => sessionStorage.getItem(KEY) ?? '',
  set: (token: string) => sessionStorage.setItem(KEY, token),
  clear: () => sessionStorage.removeItem(KEY),
};

export async function admin<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${adminToken.get()}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`/admin/api${path}`, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const parsed = (await response.json().catch(() => ({}))) as { detail?: string };
  if (!response.ok) throw new AdminError(response.status, parsed.detail ?? String(response.status));
  return parsed as T;
}

export interface PoolAnswer {
  keywords: string;
  answer_keywords: string;
  count: number;
  time: number;
  reports: number;
  deployments: number | null;
  withdrawn: 'reports' | 'moderator' | null;
}

export interface DeploymentRow {
  deployment_id: string;
  enrolled_at: number;
  blocked: boolean;
  contribute_ok: number;
  reports: number;
}

export interface RateRow {
  address: string;
  enroll_per_minute: number;
  enroll_per_hour: number;
  contribute_per_minute: number;
  contribute_per_hour: number;
}

export interface AuditRow {
  id: number;
  at: number;
  action: string;
  target: string;
  address: string;
}
