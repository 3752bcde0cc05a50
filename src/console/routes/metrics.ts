/**
 * `GET {base}/api/metrics`: the process's metrics in the Prometheus text format, for a scraper
 * holding the read token (header or `?token=`); docs/guide/troubleshooting.md has a scrape config.
 */
import type { ConsoleApp, RouteContext } from '../context.ts';
import { unavailable } from '../errors.ts';

export function metricsRoutes(api: ConsoleApp, ctx: RouteContext): void {
  api.get(
    '/metrics',
    {
      config: { envelope: false },
      schema: {
        tags: ['dashboard'],
        summary: 'Metrics in the Prometheus text format (not enveloped)',
        description:
          'Messages in, decisions by reason, replies by kind, learn writes, queue sizes and drops, the bundle-cache ' +
          'hit ratio, decision and lookup latency and learn lag histograms, every corpus-side counter (community client ' +
          'outcomes among them), event-loop lag, heap and RSS.',
        response: {
          200: {
            description: 'text/plain; version=0.0.4',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
        },
      },
    },
    async (_request, reply) => {
      const metrics = ctx.deps.metrics;
      if (!metrics) throw unavailable('metrics_elsewhere', {}, 'metrics are not collected in this process');
      return reply.type(metrics.contentType).send(await metrics.text());
    },
  );
}
