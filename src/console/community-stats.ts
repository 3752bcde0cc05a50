/**
 * GET /api/community-stats: the hub's public statistics (`GET {hub}/v1/stats`, docs/rules.md#hub-protocol),
 * so the console shows how many deployments and bots the community has. The three counts every
 * hub gives are required (at the top level, or under `deployments` as some hubs nest them); the
 * rest is passed on when present. 409 without a hub, 502 when the hub fails (hub-fetch.ts).
 */
import { badGateway } from './errors.ts';
import { fetchHubJson, hubV1Url } from './hub-fetch.ts';

export interface CommunityStats {
  deployments_total: number;
  deployments_online: number;
  bots_online_sum: number;
  stats_url: string;
  online_ttl_sec?: number;
  as_of?: string;
  deployments_online_sharded?: number;
  shard_workers_online_sum?: number;
  corpus?: Record<string, number>;
}

const OPTIONAL_COUNTS = ['online_ttl_sec', 'deployments_online_sharded', 'shard_workers_online_sum'] as const;

export async function fetchCommunityStats(
  fetchFn: typeof fetch,
  apiBase: string,
  timeoutMs: number,
): Promise<CommunityStats> {
  const url = hubV1Url(apiBase, 'stats');
  const stats = normalise(await fetchHubJson(fetchFn, url, timeoutMs), url.toString());
  if (stats === null)
    throw badGateway('hub_bad_answer', {}, 'community hub answered /v1/stats with an unexpected shape');
  return stats;
}

function normalise(body: unknown, statsUrl: string): CommunityStats | null {
  if (typeof body !== 'object' || body === null) return null;
  const raw = body as Record<string, unknown>;
  const nested = typeof raw.deployments === 'object' && raw.deployments !== null ? raw.deployments : {};
  const count = (name: string): number | undefined => {
    const value = raw[name] ?? (nested as Record<string, unknown>)[name];
    return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
  };
  const total = count('deployments_total');
  const online = count('deployments_online');
  const bots = count('bots_online_sum');
  if (total === undefined || online === undefined || bots === undefined) return null;
  const stats: CommunityStats = {
    deployments_total: total,
    deployments_online: online,
    bots_online_sum: bots,
    stats_url: statsUrl,
  };
  for (const name of OPTIONAL_COUNTS) {
    const value = count(name);
    if (value !== undefined) stats[name] = value;
  }
  if (typeof raw.as_of === 'string') stats.as_of = raw.as_of;
  if (typeof raw.corpus === 'object' && raw.corpus !== null) {
    const corpus = Object.entries(raw.corpus as Record<string, unknown>).filter(
      (entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]),
    );
    stats.corpus = Object.fromEntries(corpus);
  }
  return stats;
}
