/**
 * The home page's questions: how to connect the first account (`/home/first-run`, the OneBot
 * token only at the write level), what an operator checks first beside /bots, /system and /health
 * (`/home/status`: the hub reachable or not, silenced groups, pending requests), and today's and
 * this week's messages and replies per group from the stored daily statistics (`/home/daily`).
 * `/hub-reachability` is the hub part alone, for the 社区 page.
 */
import type { ConsoleApp, RouteContext } from '../context.ts';
import { FirstRun, HomeDaily, HomeStatus, HubReachabilityReport } from '../home-schemas.ts';
import { HubReachability } from '../hub-reachability.ts';
import { unavailable } from '../errors.ts';
import { localDay, localWeekStart } from '../local-day.ts';
import type { DailyStatsRow } from '../deps.ts';

const tags = ['dashboard'];
const ONEBOT_PATH = '/onebot/v11/ws';
/** Enough groups to count every silenced one a deployment has. */
const GROUP_SCAN_LIMIT = 10_000;
const DAILY_ROW_LIMIT = 20_000;

export function homeRoutes(api: ConsoleApp, ctx: RouteContext): void {
  const { deps } = ctx;
  const hub = new HubReachability({ fetch: deps.fetch ?? fetch, nowMs: () => deps.clock.nowMs() });
  const hubReport = () => hub.report(deps.corpus.communityApiBase());

  // Once a message was counted it stays so: the store is asked until then, never after.
  let messageSeen = false;
  const firstMessage = async (): Promise<boolean> => {
    if (messageSeen || !deps.dailyStats) return messageSeen;
    const rows = await deps.dailyStats.list({ start: '0000-01-01', end: '9999-12-31', limit: 1 });
    messageSeen = rows.some((row) => row.received > 0);
    return messageSeen;
  };

  api.get(
    '/home/first-run',
    {
      schema: {
        tags,
        summary: 'What connecting the first account needs: the OneBot path, port and token, and how far it got',
        description: 'The token itself is only in a write-level answer; a read-level answer says whether one is set.',
        response: { 200: FirstRun },
      },
    },
    async (request) => {
      const snapshot = deps.settings.current();
      const token = snapshot.onebot.accessToken;
      const accounts = deps.connectedBots?.().length ?? 0;
      const message = await firstMessage();
      return {
        onebot_path: ONEBOT_PATH,
        port: snapshot.server.port > 0 ? snapshot.server.port : (request.socket.localPort ?? 0),
        token_set: token !== '',
        token: request.consoleAccess?.level === 'write' ? token : null,
        accounts_connected: accounts,
        first_message: message,
        done: message,
      };
    },
  );

  api.get(
    '/home/status',
    {
      schema: {
        tags,
        summary: 'The hub reachable or not and since when, silenced and ignored groups, pending requests',
        description: 'A count that cannot be read is null; the hub is asked at most every 15 s.',
        response: { 200: HomeStatus },
      },
    },
    async () => {
      const now = deps.clock.nowMs();
      const [hubState, groups, pending] = await Promise.all([
        hubReport(),
        deps.chatControls.listGroups(GROUP_SCAN_LIMIT).catch(() => null),
        deps.requests.pending().catch(() => null),
      ]);
      return {
        hub: hubState,
        silenced_groups: groups ? groups.filter((group) => group.silenceUntil * 1000 > now).length : null,
        ignored_groups: groups ? groups.filter((group) => group.banned).length : null,
        pending_requests: pending ? pending.length : null,
      };
    },
  );

  api.get(
    '/hub-reachability',
    {
      schema: {
        tags: ['community'],
        summary: 'Whether the community hub answers, since when, and why not',
        response: { 200: HubReachabilityReport },
      },
    },
    hubReport,
  );

  api.get(
    '/home/daily',
    {
      schema: {
        tags,
        summary: "Today's and this week's messages and replies per group (stored daily statistics, survive restarts)",
        response: { 200: HomeDaily },
      },
    },
    async () => {
      const source = deps.dailyStats;
      if (!source) throw unavailable('daily_stats_elsewhere', {}, 'daily statistics are not kept in this process');
      const now = deps.clock.nowMs();
      const today = localDay(now);
      const weekStart = localWeekStart(now);
      const rows = await source.list({ start: weekStart, end: today, limit: DAILY_ROW_LIMIT });
      return { today, week_start: weekStart, ...perGroup(rows, today) };
    },
  );
}

type Counts = { received: number; replies: number };

const repliesOf = (row: DailyStatsRow) =>
  row.replies_group + row.replies_cross_group + row.replies_community + row.replies_repeat + row.replies_proactive;

/** Rows of several accounts in one group add up: the page shows one line per group. */
function perGroup(rows: readonly DailyStatsRow[], today: string) {
  const zero = (): Counts => ({ received: 0, replies: 0 });
  const totals = { today: zero(), week: zero() };
  const groups = new Map<number, { group_id: number; today: Counts; week: Counts }>();
  for (const row of rows) {
    let group = groups.get(row.groupId);
    if (!group) {
      group = { group_id: row.groupId, today: zero(), week: zero() };
      groups.set(row.groupId, group);
    }
    const buckets =
      row.day === today ? [group.today, group.week, totals.today, totals.week] : [group.week, totals.week];
    for (const bucket of buckets) {
      bucket.received += row.received;
      bucket.replies += repliesOf(row);
    }
  }
  const sorted = [...groups.values()].sort((a, b) => b.week.received - a.week.received || a.group_id - b.group_id);
  return { totals, groups: sorted };
}
