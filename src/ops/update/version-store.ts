/**
 * Versions side by side with a `current` pointer, for the bot (the release folder) and the web
 * console (data/web-console): `versions/<v>/` holds complete versions only (one is prepared under
 * `versions/.staging-…` and renamed into place when it is whole), `current` and `previous` are
 * symbolic links to `versions/<v>`. Switching writes a new link beside the old one and renames it
 * over `current`: one rename, so a reader (or a start after a crash) sees the old version or the
 * new one, never a mixture. Stale staging folders and versions older than `previous` are removed
 * by the next apply.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readlink, rename, rm, symlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { syncFolder, syncTree, type SyncTreeOptions } from './durable.ts';

export const CURRENT = 'current';
export const PREVIOUS = 'previous';
export const VERSIONS = 'versions';
const STAGING_PREFIX = '.staging-';

export class VersionStore {
  constructor(readonly root: string) {}

  get versionsDir(): string {
    return join(this.root, VERSIONS);
  }

  /** The path `current` stands for (through the link, so a switch is seen at once). */
  get currentPath(): string {
    return join(this.root, CURRENT);
  }

  versionPath(version: string): string {
    return join(this.versionsDir, version);
  }

  async current(): Promise<string | null> {
    return this.#target(CURRENT);
  }

  async previous(): Promise<string | null> {
    return this.#target(PREVIOUS);
  }

  /** Complete versions present, in no particular order. */
  async versions(): Promise<string[]> {
    const entries = await readdir(this.versionsDir, { withFileTypes: true }).catch(() => []);
    return entries.filter((entry) => entry.isDirectory() && !entry.name.startsWith('.')).map((entry) => entry.name);
  }

  /** A new, empty staging folder. */
  async stage(version: string): Promise<string> {
    await mkdir(this.versionsDir, { recursive: true, mode: 0o755 });
    const dir = join(this.versionsDir, `${STAGING_PREFIX}${version}-${randomBytes(4).toString('hex')}`);
    await mkdir(dir, { mode: 0o755 });
    return dir;
  }

  /**
   * Moves a whole staged version into `versions/<v>`, flushed to disk with the folder that names
   * it, so the switch that follows never names a version a power cut could lose
   * (docs/rules.md#update-durable). A folder of that name that no pointer names is an earlier,
   * unused install of the same version and is replaced; `previous` is let go first when it names
   * it (re-installing the version a rollback would go to).
   */
  async commit(staged: string, version: string, sync: SyncTreeOptions = {}): Promise<string> {
    await syncTree(staged, sync);
    const target = this.versionPath(version);
    const current = await this.current();
    const previous = await this.previous();
    if (version === current) throw new Error(`version ${version} is the current one`);
    // A version folder that no pointer names is an earlier, unused install of the same version.
    if (version !== previous) await rm(target, { recursive: true, force: true });
    else await this.#point(PREVIOUS, null);
    await rename(staged, target);
    await syncFolder(this.versionsDir);
    return target;
  }

  /** Points `current` at `version` and `previous` at what was current. */
  async switchTo(version: string): Promise<void> {
    const old = await this.current();
    if (old !== null && old !== version) await this.#point(PREVIOUS, old);
    await this.#point(CURRENT, version);
  }

  /** Swaps `current` and `previous`; resolves with the version now current. */
  async rollback(): Promise<string> {
    const current = await this.current();
    const previous = await this.previous();
    if (previous === null || previous === current) throw new Error('there is no previous version to go back to');
    await this.#point(CURRENT, previous);
    if (current !== null) await this.#point(PREVIOUS, current);
    return previous;
  }

  /** Removes staging leftovers and versions that neither pointer names. */
  async prune(): Promise<string[]> {
    const keep = new Set([await this.current(), await this.previous()]);
    const entries = await readdir(this.versionsDir, { withFileTypes: true }).catch(() => []);
    const removed: string[] = [];
    for (const entry of entries) {
      if (!entry.isDirectory() || keep.has(entry.name)) continue;
      await rm(join(this.versionsDir, entry.name), { recursive: true, force: true });
      removed.push(entry.name);
    }
    return removed;
  }

  async #target(name: string): Promise<string | null> {
    try {
      return basename(await readlink(join(this.root, name)));
    } catch {
      return null;
    }
  }

  /** Points link `name` at `versions/<version>` (null removes it) by writing a new link and renaming it over. */
  async #point(name: string, version: string | null): Promise<void> {
    const link = join(this.root, name);
    if (version === null) {
      await rm(link, { force: true });
      await syncFolder(this.root);
      return;
    }
    const fresh = `${link}.${randomBytes(4).toString('hex')}.new`;
    await symlink(join(VERSIONS, version), fresh);
    await rename(fresh, link);
    await syncFolder(this.root);
  }
}
