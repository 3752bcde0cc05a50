/** Daily counts per bot account and group, kept in the database (GET /console-daily-stats). */
import type { ConsoleApp, RouteContext } from '../context.ts';
import { DailyStats, DailyStatsQuery } from '../dashboard-schemas.ts';
import { invalidField, unavailable } from '../errors.ts';
import { DASHBOARD } from '../limits.ts';
import { DAY_MS, localDay } from '../local-day.ts';

export function dailyStatsRoutes(api: ConsoleApp, ctx: RouteContext): void {
  api.get(
    '/console-daily-stats',
    {
      schema: {
        tags: ['dashboard'],
        summary: 'Daily rows per bot and group: received, replies by kind, learning, bans (survive restarts)',
        description: `Days from start to end inclusive (default: the last 7 days up to today); at most ${DASHBOARD.dailyMaxDays} days.`,
        querystring: DailyStatsQuery,
        response: { 200: DailyStats },
      },
    },
    async (request) => {
      const source = ctx.deps.dailyStats;
      if (!source) throw unavailable('daily_stats_elsewhere', {}, 'daily statistics are not kept in this process');
      const now = ctx.deps.clock.nowMs();
      const end = request.query.end ?? localDay(now);
      const start = request.query.start ?? localDay(now - 6 * DAY_MS);
      const startMs = dayMs(start, 'query.start');
      const endMs = dayMs(end, 'query.end');
      if (startMs > endMs) throw invalidField('query.start', 'order', 'query.start: after query.end');
      if ((endMs - startMs) / DAY_MS + 1 > DASHBOARD.dailyMaxDays) {
        throw invalidField(
          'query.start',
          'range',
          `query.start: at most ${DASHBOARD.dailyMaxDays} days from start to end`,
          { limit: DASHBOARD.dailyMaxDays },
        );
      }
      const rows = await source.list({
        start,
        end,
        ...(request.query.self_id !== undefined ? { selfId: request.query.self_id } : {}),
        ...(request.query.group_id !== undefined ? { groupId: request.query.group_id } : {}),
        limit: DASHBOARD.dailyMaxRows + 1,
      });
      return {
        start,
        end,
        truncated: rows.length > DASHBOARD.dailyMaxRows,
        rows: rows.slice(0, DASHBOARD.dailyMaxRows).map((row) => ({
          day: row.day,
          self_id: row.selfId,
          group_id: row.groupId,
          received: row.received,
          replies_group: row.replies_group,
          replies_cross_group: row.replies_cross_group,
          replies_community: row.replies_community,
          replies_repeat: row.replies_repeat,
          replies_proactive: row.replies_proactive,
          learn_queued: row.learn_queued,
          bans: row.bans,
        })),
      };
    },
  );
}

function dayMs(day: string, field: string): number {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) {
    throw invalidField(field, 'not_a_day', `${field}: not a calendar day`);
  }
  return date.getTime();
}
