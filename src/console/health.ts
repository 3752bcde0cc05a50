import type { Static } from 'typebox';
import type { HealthReport as HealthReportSchema } from './schemas.ts';

/** What `GET {base_url}/api/health` reports (public, not enveloped: docs/rules.md#console-envelope). */
export type HealthReport = Static<typeof HealthReportSchema>;

export type HealthSource = () => HealthReport;
