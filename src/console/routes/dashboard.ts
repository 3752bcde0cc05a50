/**
 * Dashboards: where Chorus runs (`/system`), the connected accounts (`/bots`), one overview of
 * everything (`/home/overview`, each slice failing on its own), messages per minute
 * (`/message-stats`) and the repeater's hourly metrics (`/repeater-metrics/history`).
 */
import { latencyPercentile, type HourStats } from '../../repeater/index.ts';
import { TIMED_OUT, withTimeout } from '../../common/timeout.ts';
import type { ConsoleApp, RouteContext } from '../context.ts';
import {
  BotReport,
  MessageStats,
  MessageStatsQuery,
  MetricsHistory,
  MetricsHistoryQuery,
  Overview,
  SystemReport,
} from '../dashboard-schemas.ts';
import type { ConnectedBotInfo } from '../deps.ts';
import { HttpError, unavailable } from '../errors.ts';
import { DASHBOARD } from '../limits.ts';
import { SystemSampler } from '../system-info.ts';
import Type from 'typebox';

const tags = ['dashboard'];

export function dashboardRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;
  const sampler = deps.system ? new SystemSampler(deps.system.dataDir) : null;

  const system = async () => {
    const source = deps.system;
    if (!source || !sampler)
      throw unavailable('system_facts_elsewhere', {}, 'system facts are not available in this process');
    const now = deps.clock.nowMs();
    return {
      version: deps.version,
      deployment: await source.deployment(),
      node_version: process.version,
      platform: `${process.platform}-${process.arch}`,
      engine: source.engine,
      uptime_sec: Math.max(0, Math.round((now - source.startedAtMs) / 1000)),
      server_time: now,
      ...(await sampler.sample()),
    };
  };

  const nicknames = new Map<number, { name: string | null; atMs: number }>();
  const nickname = async (selfId: number): Promise<string | null> => {
    const known = nicknames.get(selfId);
    const now = deps.clock.monotonicMs();
    if (known && now - known.atMs < DASHBOARD.nicknameTtlMs) return known.name;
    const ask = deps.watch?.nickname;
    if (!ask) return null;
    const answer = await withTimeout(
      ask(selfId).catch(() => null),
      DASHBOARD.nicknameTimeoutMs,
    );
    const name = answer === TIMED_OUT ? (known?.name ?? null) : answer;
    nicknames.set(selfId, { name, atMs: now });
    if (nicknames.size > 1000) nicknames.delete(nicknames.keys().next().value as number);
    return name;
  };

  const bots = async () =>
    Promise.all(
      (deps.connectedBots?.() ?? []).map(async (bot: ConnectedBotInfo) => ({
        self_id: bot.selfId,
        nickname: await nickname(bot.selfId),
        roles: [...bot.roles],
        connected_at: bot.connectedAt,
        remote_address: bot.remoteAddress ?? null,
        frames_in: bot.framesIn ?? 0,
        frames_out: bot.framesOut ?? 0,
        last_event_at: bot.lastEventAt,
        online: bot.online,
      })),
    );

  api.get(
    '/system',
    {
      schema: {
        tags,
        summary: 'Version, deployment, Node, database engine, uptime, CPU, memory and disk',
        response: { 200: SystemReport },
      },
    },
    () => ctx.cache.get('system', DASHBOARD.systemCache, system),
  );

  api.get(
    '/bots',
    {
      schema: {
        tags,
        summary: 'The OneBot accounts connected to this process, with their traffic',
        response: { 200: Type.Array(BotReport) },
      },
    },
    bots,
  );

  api.get(
    '/home/overview',
    {
      schema: {
        tags,
        summary: 'Health, system, bots, activity and community in one answer; a failing part is degraded alone',
        response: { 200: Overview },
      },
    },
    () =>
      ctx.cache.get('home-overview', DASHBOARD.overviewCache, async () => {
        const [health, systemSlice, botsSlice, activity, community] = await Promise.all([
          slice(async () => deps.health() as unknown as Record<string, unknown>),
          slice(() => ctx.cache.get('system', DASHBOARD.systemCache, system)),
          slice(bots),
          slice(async () => {
            const watch = deps.watch;
            if (!watch) throw new Error('the repeater does not run in this process');
            const now = deps.clock.nowMs();
            const recent = watch.activity.minutes(null, 5, now);
            const sum = (key: 'received' | 'replies') => recent.reduce((total, row) => total + row[key], 0);
            const hour = watch.activity.hours(1)[0];
            const current = hour && now - hour.hour < 3_600_000 ? hour.byReason : {};
            return {
              received_per_min: sum('received') / recent.length,
              replies_per_min: sum('replies') / recent.length,
              decisions_last_hour: { ...current },
            };
          }),
          slice(async () => {
            const status = await deps.corpus.status();
            return status.sources.community as unknown as Record<string, unknown>;
          }),
        ]);
        return { health, system: systemSlice, bots: botsSlice, activity, community };
      }),
  );

  api.get(
    '/message-stats',
    {
      schema: {
        tags,
        summary: 'Messages received, replies and texts sent per minute, for one bot or all',
        querystring: MessageStatsQuery,
        response: { 200: MessageStats },
      },
    },
    async (request) => {
      const watch = deps.watch;
      if (!watch) throw unavailable('repeater_elsewhere', {}, 'the repeater does not run in this process');
      const selfId = request.query.self_id ?? null;
      const minutes = watch.activity.minutes(selfId, request.query.minutes ?? 180, deps.clock.nowMs());
      const connected = new Map((deps.connectedBots?.() ?? []).map((bot) => [bot.selfId, bot]));
      const ids = new Set([...watch.activity.bots(), ...connected.keys()]);
      return {
        self_id: selfId,
        minutes,
        totals: {
          received: minutes.reduce((sum, row) => sum + row.received, 0),
          replies: minutes.reduce((sum, row) => sum + row.replies, 0),
          sent: minutes.reduce((sum, row) => sum + row.sent, 0),
        },
        bots: [...ids]
          .filter((id) => selfId === null || id === selfId)
          .sort((a, b) => a - b)
          .map((id) => ({ self_id: id, actions_called: connected.get(id)?.framesOut ?? null })),
      };
    },
  );

  api.get(
    '/repeater-metrics/history',
    {
      schema: {
        tags,
        summary: 'Hourly: decisions by reason, replies, learn writes, cache hit rate, p50/p99 decision latency',
        querystring: MetricsHistoryQuery,
        response: { 200: MetricsHistory },
      },
    },
    async (request) => {
      const watch = deps.watch;
      if (!watch) throw unavailable('repeater_elsewhere', {}, 'the repeater does not run in this process');
      return watch.activity.hours(request.query.limit ?? 168).map(hourJson);
    },
  );
}

function hourJson(hour: HourStats) {
  const lookups = Object.values(hour.cache).reduce((sum, n) => sum + n, 0);
  const hits = (hour.cache.hit ?? 0) + (hour.cache['negative-hit'] ?? 0);
  return {
    hour: hour.hour,
    decisions: hour.decisions,
    by_reason: { ...hour.byReason },
    replies: hour.replies,
    learn_writes: hour.learnWrites,
    cache: { ...hour.cache },
    cache_hit_rate: lookups > 0 ? Math.round((hits / lookups) * 1000) / 1000 : null,
    p50_ms: latencyPercentile(hour.latency, 0.5),
    p99_ms: latencyPercentile(hour.latency, 0.99),
  };
}

/** One part of the overview: its data, or degraded with the reason, within a deadline. */
async function slice<T>(
  load: () => Promise<T> | T,
): Promise<{ status: 'ok' | 'degraded'; error: string | null; data: T | null }> {
  try {
    const value = await withTimeout(Promise.resolve().then(load), DASHBOARD.sliceTimeoutMs);
    if (value === TIMED_OUT)
      return { status: 'degraded', error: `no answer within ${DASHBOARD.sliceTimeoutMs} ms`, data: null };
    return { status: 'ok', error: null, data: value };
  } catch (error) {
    const detail = error instanceof HttpError ? error.detail : error instanceof Error ? error.message : String(error);
    return { status: 'degraded', error: detail, data: null };
  }
}
