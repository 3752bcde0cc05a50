/** What `GET {base_url}/api/health` reports (public, not enveloped: DECISIONS.md "Console"). */
export interface HealthReport {
  status: 'ok';
  version: string;
  storage: { engine: 'sqlite' | 'postgres'; pressure: number };
  uptime_sec: number;
}

export type HealthSource = () => HealthReport;
