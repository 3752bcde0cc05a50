/**
 * Semantic versions as release tags carry them (`v1.2.3`, `1.2.3-rc.1`): parsing and the ordering
 * of semver 2.0 (build metadata ignored, a pre-release below its release, numeric identifiers
 * compared as numbers and below alphanumeric ones).
 */
export interface SemVer {
  major: number;
  minor: number;
  patch: number;
  prerelease: readonly string[];
  /** Without the `v` and without build metadata, e.g. "1.2.3-rc.1". */
  text: string;
}

const PATTERN =
  /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*)?$/;

/** The version a tag names, or null when it is not a semantic version. */
export function parseVersion(tag: string): SemVer | null {
  const match = PATTERN.exec(tag.trim());
  if (!match) return null;
  const [major, minor, patch] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (![major, minor, patch].every(Number.isSafeInteger)) return null;
  const prerelease = match[4] === undefined ? [] : match[4].split('.');
  const text = `${major}.${minor}.${patch}${prerelease.length > 0 ? `-${prerelease.join('.')}` : ''}`;
  return { major, minor, patch, prerelease, text };
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareVersions(a: SemVer, b: SemVer): number {
  for (const key of ['major', 'minor', 'patch'] as const) {
    if (a[key] !== b[key]) return a[key] - b[key];
  }
  if (a.prerelease.length === 0 || b.prerelease.length === 0) {
    return (a.prerelease.length === 0 ? 1 : 0) - (b.prerelease.length === 0 ? 1 : 0);
  }
  for (let i = 0; i < Math.max(a.prerelease.length, b.prerelease.length); i++) {
    const x = a.prerelease[i];
    const y = b.prerelease[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xNum = /^\d+$/.test(x);
    const yNum = /^\d+$/.test(y);
    if (xNum && yNum) return Number(x) - Number(y);
    if (xNum !== yNum) return xNum ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return 0;
}
