/**
 * The release feed: GitHub's releases JSON (`GET …/repos/{owner}/{repo}/releases`, an array; a
 * single release object is taken too) at CHORUS_UPDATE_FEED_URL. A release that Chorus can install
 * is a non-draft one whose tag is a semantic version and which carries the bot archive
 * `chorus-<version>.tar.gz`, the web-console archive `chorus-web-<version>.tar.gz` and
 * `SHA256SUMS`. The newest by semantic version wins; the stable track skips pre-releases.
 */
import { compareVersions, parseVersion, type SemVer } from './semver.ts';

export type UpdateTrack = 'stable' | 'prerelease';

export interface ReleaseAsset {
  name: string;
  url: string;
  size: number | null;
}

export interface Release {
  tag: string;
  version: SemVer;
  name: string;
  notes: string;
  prerelease: boolean;
  url: string;
  publishedAt: string | null;
  botAsset: ReleaseAsset | null;
  webAsset: ReleaseAsset | null;
  sumsAsset: ReleaseAsset | null;
}

export const SUMS_ASSET = 'SHA256SUMS';
export const botAssetName = (version: string) => `chorus-${version}.tar.gz`;
export const webAssetName = (version: string) => `chorus-web-${version}.tar.gz`;

/** Release notes longer than this are cut (the page links to the release). */
const NOTES_CHARS = 40_000;

export class FeedError extends Error {
  override readonly name = 'FeedError';
}

export interface FeedRequest {
  url: string;
  fetch: typeof fetch;
  timeoutMs: number;
  /** The body is read as a stream and refused past this many bytes (docs/rules.md#archive-bounds). */
  maxBytes: number;
  signal?: AbortSignal;
}

/** Reads the feed; throws FeedError with a readable detail (timeout, status, shape). */
export async function readFeed(request: FeedRequest): Promise<Release[]> {
  const signals = [AbortSignal.timeout(request.timeoutMs), ...(request.signal ? [request.signal] : [])];
  let body: unknown;
  try {
    const response = await request.fetch(request.url, {
      headers: { accept: 'application/vnd.github+json', 'user-agent': 'chorus-update' },
      signal: AbortSignal.any(signals),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new FeedError(`release feed answered HTTP ${response.status}`);
    }
    body = JSON.parse(await boundedText(response, request.maxBytes));
  } catch (error) {
    if (error instanceof FeedError) throw error;
    const name = error instanceof Error ? error.name : '';
    if (name === 'TimeoutError' || name === 'AbortError')
      throw new FeedError(`release feed did not answer within ${request.timeoutMs} ms`);
    if (error instanceof SyntaxError) throw new FeedError('release feed is not JSON');
    throw new FeedError(`release feed unreachable: ${error instanceof Error ? error.message : String(error)}`);
  }
  const items = Array.isArray(body) ? body : typeof body === 'object' && body !== null ? [body] : null;
  if (items === null) throw new FeedError('release feed is not a releases array');
  return items.flatMap((item) => {
    const release = releaseOf(item);
    return release ? [release] : [];
  });
}

/**
 * The body as text, read chunk by chunk and given up (the connection closed) as soon as it passes
 * `maxBytes`: a feed that answers gigabytes, or without end, costs at most that much memory.
 */
async function boundedText(response: Response, maxBytes: number): Promise<string> {
  const tooLarge = () => new FeedError(`release feed answer is larger than ${maxBytes} bytes: refused`);
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (response.body === null) return '';
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      bytes += value.byteLength;
      if (bytes > maxBytes) throw tooLarge();
      chunks.push(value);
    }
  } finally {
    if (bytes > maxBytes) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The newest release of the track, or null. */
export function latestRelease(releases: readonly Release[], track: UpdateTrack): Release | null {
  let best: Release | null = null;
  for (const release of onTrack(releases, track)) {
    if (best === null || compareVersions(release.version, best.version) > 0) best = release;
  }
  return best;
}

/** The releases of the track, newest first. */
export function onTrack(releases: readonly Release[], track: UpdateTrack): Release[] {
  return releases
    .filter((release) => track === 'prerelease' || (!release.prerelease && release.version.prerelease.length === 0))
    .sort((a, b) => compareVersions(b.version, a.version));
}

function releaseOf(item: unknown): Release | null {
  if (typeof item !== 'object' || item === null) return null;
  const raw = item as Record<string, unknown>;
  if (raw.draft === true || typeof raw.tag_name !== 'string') return null;
  const version = parseVersion(raw.tag_name);
  if (version === null) return null;
  const assets = Array.isArray(raw.assets) ? raw.assets.flatMap(assetOf) : [];
  const find = (name: string) => assets.find((asset) => asset.name === name) ?? null;
  const notes = typeof raw.body === 'string' ? raw.body : '';
  return {
    tag: raw.tag_name,
    version,
    name: typeof raw.name === 'string' && raw.name !== '' ? raw.name : raw.tag_name,
    notes: notes.length > NOTES_CHARS ? `${notes.slice(0, NOTES_CHARS)}\n\n…` : notes,
    prerelease: raw.prerelease === true,
    url: typeof raw.html_url === 'string' ? raw.html_url : '',
    publishedAt: typeof raw.published_at === 'string' ? raw.published_at : null,
    botAsset: find(botAssetName(version.text)),
    webAsset: find(webAssetName(version.text)),
    sumsAsset: find(SUMS_ASSET),
  };
}

function assetOf(item: unknown): ReleaseAsset[] {
  if (typeof item !== 'object' || item === null) return [];
  const raw = item as Record<string, unknown>;
  if (typeof raw.name !== 'string' || typeof raw.browser_download_url !== 'string') return [];
  return [{ name: raw.name, url: raw.browser_download_url, size: typeof raw.size === 'number' ? raw.size : null }];
}
