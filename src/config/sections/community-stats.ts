/**
 * The community-statistics client (docs/rules.md#enroll): the hub's heartbeat endpoint, from which the
 * corpus enrollment URL and the community API base are derived. Chorus has no official hub, so
 * the endpoint defaults to '' (no hub): enrollment and heartbeat stay idle.
 */
import { field, parsedBad, parsedOk, type Parsed } from '../field.ts';
import { defineSection, type SectionValues } from '../section.ts';

const group = 'Community statistics';

/** '' (no hub) or an http(s) URL; a trailing slash is dropped. */
export function checkHubEndpoint(text: string): Parsed<string> {
  const url = text.trim().replace(/\/+$/, '');
  if (url === '') return parsedOk('');
  if (!/^https?:\/\//i.test(url) || !URL.canParse(url)) {
    return parsedBad(
      'expected empty (no hub) or an http:// or https:// URL such as http://127.0.0.1:8099/v1/heartbeat',
    );
  }
  return parsedOk(url);
}

export const communityStatsSection = defineSection({
  id: 'communityStats',
  title: 'Community statistics',
  prefix: 'CHORUS_COMMUNITY_STATS_',
  fields: [
    field.bool({
      env: 'CHORUS_COMMUNITY_STATS_ENABLED',
      default: true,
      group,
      description: 'Report to the community hub (heartbeat) and allow automatic corpus enrollment.',
    }),
    field.string({
      env: 'CHORUS_COMMUNITY_STATS_ENDPOINT',
      default: '',
      check: checkHubEndpoint,
      group,
      description: 'Heartbeat URL of the community hub, e.g. http://127.0.0.1:8099/v1/heartbeat; empty means no hub.',
    }),
    field.int({
      env: 'CHORUS_COMMUNITY_STATS_INTERVAL_SEC',
      default: 300,
      min: 60,
      max: 3600,
      group,
      description: 'Seconds between heartbeats.',
    }),
    field.int({
      env: 'CHORUS_COMMUNITY_STATS_CORPUS_HOT_SNAPSHOT_INTERVAL_SEC',
      default: 900,
      min: 300,
      max: 86400,
      group,
      description: 'Seconds between hot-keyword snapshots attached to the heartbeat (only while contributing).',
    }),
    field.string({
      env: 'CHORUS_COMMUNITY_STATS_TOKEN',
      default: '',
      secret: true,
      group,
      description: 'Optional Bearer token for the heartbeat and enrollment requests.',
    }),
  ],
});

export type CommunityStatsConfig = SectionValues<typeof communityStatsSection>;
