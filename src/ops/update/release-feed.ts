/**
 * The release feed as the update service reads it: the newest release for a job, a check of the
 * running version against it, and the feed's releases kept for the check cache time so that
 * opening the update page twice reads the feed once.
 */
import { FeedError, latestRelease, readFeed, type Release, type UpdateTrack } from './feed.ts';
import type { UpdateTiming } from './limits.ts';
import { compareVersions, parseVersion } from './semver.ts';
import type { UpdateServiceOptions } from './service-options.ts';
import type { CheckBase } from './types.ts';

type FeedOptions = Pick<UpdateServiceOptions, 'settings' | 'fetch' | 'now'>;

export class ReleaseFeed {
  readonly #options: FeedOptions;
  readonly #timing: UpdateTiming;
  #cache: { key: string; at: number; releases: Promise<Release[]> } | null = null;

  constructor(options: FeedOptions, timing: UpdateTiming) {
    this.#options = options;
    this.#timing = timing;
  }

  /** The newest release on the track (or `tag`), for a job: a feed problem fails the job. */
  async latestForJob(signal: AbortSignal, tag?: string): Promise<Release> {
    const { feedUrl, track } = this.#options.settings();
    try {
      const releases = await readFeed({
        url: feedUrl,
        fetch: this.#options.fetch,
        timeoutMs: this.#timing.feedTimeoutMs,
        maxBytes: this.#timing.maxFeedBytes,
        signal,
      });
      const release = tag ? releases.find((item) => item.tag === tag) : latestRelease(releases, track);
      if (!release) throw new FeedError(tag ? `release ${tag} is not in the feed` : `the feed has no ${track} release`);
      return release;
    } catch (error) {
      if (error instanceof FeedError) throw new FeedError(`${error.message}; nothing was changed`);
      throw error;
    }
  }

  /** `current` against the newest release on the configured track (an unreadable feed is reported). */
  async compare(current: string): Promise<CheckBase & { release: Release | null }> {
    const { feedUrl, track } = this.#options.settings();
    const base = {
      configured: feedUrl !== '',
      track,
      current_version: current,
      latest_tag: null,
      latest_version: null,
      has_update: false,
      release_url: '',
      release_name: '',
      release_notes: '',
      published_at: null,
      error: null,
      checked_at: this.#options.now(),
      release: null,
    };
    if (feedUrl === '') return base;
    let release: Release | null;
    try {
      release = latestRelease(await this.releases(feedUrl, track), track);
    } catch (error) {
      return { ...base, error: error instanceof Error ? error.message : String(error) };
    }
    if (release === null) return { ...base, error: `the feed has no ${track} release` };
    const installed = parseVersion(current);
    return {
      ...base,
      latest_tag: release.tag,
      latest_version: release.version.text,
      has_update: installed === null || compareVersions(release.version, installed) > 0,
      release_url: release.url,
      release_name: release.name,
      release_notes: release.notes,
      published_at: release.publishedAt,
      release,
    };
  }

  /** The feed's releases, kept for the check cache time; a failed read is not kept. */
  releases(url: string, track: UpdateTrack): Promise<Release[]> {
    const key = `${url}\n${track}`;
    const now = this.#options.now();
    if (this.#cache && this.#cache.key === key && now - this.#cache.at < this.#timing.checkCacheMs)
      return this.#cache.releases;
    const releases = readFeed({
      url,
      fetch: this.#options.fetch,
      timeoutMs: this.#timing.feedTimeoutMs,
      maxBytes: this.#timing.maxFeedBytes,
    });
    this.#cache = { key, at: now, releases };
    // A failed read is not kept.
    releases.catch(() => {
      if (this.#cache?.releases === releases) this.#cache = null;
    });
    return releases;
  }
}
