/** What `GET {base_url}/api/health` reports (public, not enveloped: DECISIONS.md "Console"). */
export interface HealthReport {
  status: 'ok';
  version: string;
  storage: { engine: 'sqlite' | 'postgres'; pressure: number };
  corpus: { composite_active: boolean; learning_queue: number; mirror_queue: number };
  workers: { learn: boolean; mirror: boolean };
  uptime_sec: number;
}

export type HealthSource = () => HealthReport;
