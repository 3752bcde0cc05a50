/**
 * The update domain as the console uses it: checks against the release feed (web console and
 * bot), applying a release as a job (one update job at a time), rollback, and the refusals that
 * depend on how Chorus is installed. Built once by the composition root.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { childEnvironment } from '../command.ts';
import { Git } from '../git.ts';
import { JobFailure, type Job } from '../jobs/index.ts';
import { applyBotRelease, migrationsFit } from './bot-apply.ts';
import {
  applyConfigMigration,
  checkConfigMigration,
  type MigrationApplied,
  type MigrationCheck,
} from './config-migration.ts';
import { onTrack } from './feed.ts';
import { applyGitTarget, gitHistory, type GitMode } from './git-source.ts';
import { DEFAULT_UPDATE_TIMING, UPDATE_JOB, type UpdateTiming } from './limits.ts';
import { compareVersions, parseVersion } from './semver.ts';
import { ReleaseFeed } from './release-feed.ts';
import { VersionStore } from './version-store.ts';
import { botRefusal, botRefusalCode, layoutRefusal } from './refusals.ts';
import type { BotCheck, GitApply, HistoryPage, WebCheck } from './types.ts';
import { applyWebRelease } from './web-apply.ts';

export type { BotCheck, CheckBase, GitApply, HistoryPage, WebCheck } from './types.ts';
export {
  UpdateRefused,
  type RollbackOutcome,
  type UpdateServiceOptions,
  type UpdateSettings,
} from './service-options.ts';
import { UpdateRefused, type RollbackOutcome, type UpdateServiceOptions } from './service-options.ts';

/** Resolves when the job has ended, however it ended. */
function finished(job: Job): Promise<void> {
  if (job.finished) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = job.subscribe(() => {
      if (!job.finished) return;
      stop();
      resolve();
    });
  });
}

export class UpdateService {
  readonly #options: UpdateServiceOptions;
  readonly #timing: UpdateTiming;
  readonly web: VersionStore;
  readonly bot: VersionStore | null;
  readonly #feed: ReleaseFeed;
  readonly #git: Git;

  constructor(options: UpdateServiceOptions) {
    this.#options = options;
    this.#timing = { ...DEFAULT_UPDATE_TIMING, ...options.timing };
    this.web = new VersionStore(options.webRoot);
    this.bot = options.releaseRoot === null ? null : new VersionStore(options.releaseRoot);
    this.#git = options.git ?? new Git(options.env);
    this.#feed = new ReleaseFeed(options, this.#timing);
  }

  get timing(): UpdateTiming {
    return this.#timing;
  }

  /**
   * The web-console dist to serve: the installed web release while it is newer than the console
   * this bot carries, else null (the bundled one). So a bot update brings its own console along
   * instead of an older installed one pinning the UI (docs/rules.md#web-console-pick).
   */
  async webDist(): Promise<string | null> {
    return (await this.#webServing()).serving === 'installed' ? this.web.currentPath : null;
  }

  async check(): Promise<WebCheck> {
    const { installed, serving } = await this.#webServing();
    const bundled = this.#options.runningVersion;
    const current = serving === 'installed' && installed !== null ? installed : bundled;
    const { release, ...base } = await this.#feed.compare(current);
    return {
      ...base,
      asset_url: release?.webAsset?.url ?? '',
      bundled_version: bundled,
      installed_version: installed,
      serving,
    };
  }

  async #webServing(): Promise<{ installed: string | null; serving: 'bundled' | 'installed' }> {
    const installed = await this.web.current();
    return { installed, serving: installed !== null && this.#newerThanBundled(installed) ? 'installed' : 'bundled' };
  }

  #newerThanBundled(version: string): boolean {
    const candidate = parseVersion(version);
    const bundled = parseVersion(this.#options.runningVersion);
    return candidate !== null && (bundled === null || compareVersions(candidate, bundled) > 0);
  }

  async botCheck(): Promise<BotCheck> {
    const deployment = await this.#options.deployment();
    const installed = this.bot ? await this.bot.current() : null;
    const current = installed ?? this.#options.runningVersion;
    const { release, ...base } = await this.#feed.compare(current);
    const running = parseVersion(this.#options.runningVersion);
    const latest = release?.version ?? null;
    const refusal = botRefusal(deployment, base.configured, this.bot !== null);
    const previous = this.bot ? await this.bot.previous() : null;
    return {
      ...base,
      deployment,
      running_version: this.#options.runningVersion,
      previous_version: previous,
      restart_pending: installed !== null && installed !== this.#options.runningVersion,
      restart_available: this.#options.requestRestart !== undefined,
      development_build: running !== null && latest !== null && compareVersions(running, latest) > 0,
      can_apply: refusal === null && base.has_update,
      apply_refusal: refusal,
      apply_refusal_code: botRefusalCode(deployment, base.configured, this.bot !== null),
      can_rollback: previous !== null && this.bot !== null,
    };
  }

  /** Starts applying the newest web-console release. */
  async startWebApply(): Promise<Job> {
    if (this.#options.settings().feedUrl === '')
      throw new UpdateRefused('no release feed is configured (CHORUS_UPDATE_FEED_URL)');
    return this.#options.jobs.start(UPDATE_JOB, 'webui', async (context) => {
      const release = await this.#feed.latestForJob(context.signal);
      if (!this.#newerThanBundled(release.version.text))
        throw new JobFailure(
          `web console ${release.version.text} is not newer than the one this bot carries ` +
            `(${this.#options.runningVersion}); nothing was changed`,
        );
      const downloadDir = await this.#downloads(this.#options.webRoot);
      return applyWebRelease({
        release,
        store: this.web,
        downloadDir,
        fetch: this.#options.fetch,
        timing: this.#timing,
        context,
        ...(this.#options.hook ? { hook: this.#options.hook } : {}),
      });
    });
  }

  /** Starts applying the newest bot release (or `tag`); `restart` asks the supervisor afterwards. */
  async startBotApply(request: { restart: boolean; tag?: string }): Promise<Job> {
    const deployment = await this.#options.deployment();
    const refusal = botRefusal(deployment, this.#options.settings().feedUrl !== '', this.bot !== null);
    if (refusal !== null) throw new UpdateRefused(refusal);
    const store = this.bot as VersionStore;
    const root = this.#options.releaseRoot as string;
    return this.#options.jobs.start(UPDATE_JOB, 'bot', async (context) => {
      const release = await this.#feed.latestForJob(context.signal, request.tag);
      const outcome = await applyBotRelease({
        release,
        store,
        downloadDir: await this.#downloads(root),
        runningDir: this.#options.runningDir,
        projectDir: this.#options.projectDir,
        env: this.#options.env,
        fetch: this.#options.fetch,
        timing: this.#timing,
        context,
        ...(this.#options.hook ? { hook: this.#options.hook } : {}),
      });
      const restart = request.restart && this.#options.requestRestart !== undefined;
      if (request.restart && !restart)
        outcome.message += '; restart Chorus to run it (nothing supervises this process)';
      outcome.result.restart_scheduled = restart
        ? (this.#options.requestRestart?.(deployment === 'container') ?? false)
        : false;
      return outcome;
    });
  }

  /** Release tags or commits of a source checkout; the feed's releases elsewhere (no commits there). */
  async history(mode: GitMode, limit: number): Promise<HistoryPage> {
    const deployment = await this.#options.deployment();
    if (deployment === 'source') {
      const page = await gitHistory(this.#git, this.#options.runningDir, mode, limit);
      return { mode, deployment, items: page.items, head: page.head, error: page.fetch_error };
    }
    const installed = (this.bot ? await this.bot.current() : null) ?? this.#options.runningVersion;
    const head = { sha: '', short_sha: '', tag: installed, date: '', message: '' };
    if (mode === 'commit' || this.#options.settings().feedUrl === '')
      return { mode, deployment, items: [], head, error: null };
    const { feedUrl, track } = this.#options.settings();
    try {
      const releases = onTrack(await this.#feed.releases(feedUrl, track), track).slice(0, limit);
      const items = releases.map((release, index) => ({
        kind: 'release' as const,
        ref: release.tag,
        short_ref: release.tag,
        date: release.publishedAt ?? '',
        message: release.name,
        is_head: release.version.text === installed,
        is_latest: index === 0,
      }));
      return { mode, deployment, items, head, error: null };
    } catch (error) {
      return { mode, deployment, items: [], head, error: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * Moves to a release tag or a commit. A source checkout does it with git; elsewhere only a
   * release (safe) is possible, applied as a release; commit mode and force are refused there.
   */
  async startGitApply(request: GitApply): Promise<Job> {
    const deployment = await this.#options.deployment();
    if (deployment !== 'source') {
      const where = deployment === 'container' ? 'a container' : 'a release deployment';
      const instead =
        deployment === 'container'
          ? 'to run other code, change the image on the host (docker compose pull && docker compose up -d)'
          : 'apply a release instead';
      if (request.mode === 'commit')
        throw new UpdateRefused(`${where} is updated only by official releases, not commits: ${instead}`);
      if (request.strategy === 'force')
        throw new UpdateRefused(`${where} has no git checkout to force or reset: ${instead}`);
      return this.startBotApply({ restart: request.restart, ...(request.ref ? { tag: request.ref } : {}) });
    }
    return this.#options.jobs.start(UPDATE_JOB, 'bot-git', async (context) => {
      const outcome = await applyGitTarget({
        git: this.#git,
        dir: this.#options.runningDir,
        mode: request.mode,
        ref: request.ref,
        strategy: request.strategy,
        env: childEnvironment(this.#options.env),
        installTimeoutMs: this.#timing.installTimeoutMs,
        context,
      });
      const restart = request.restart && outcome.result.changed === true && this.#options.requestRestart !== undefined;
      outcome.result.restart_scheduled = restart ? (this.#options.requestRestart?.(false) ?? false) : false;
      return outcome;
    });
  }

  /** Renamed, removed and origin (`PALLAS_*`) keys in `.env` and `chorus.toml`, without values. */
  configMigrationCheck(): Promise<MigrationCheck> {
    return checkConfigMigration(this.#options.projectDir);
  }

  /** Rewrites the files that need it (atomically, after a backup); refused while an update job runs. */
  async configMigrationApply(): Promise<MigrationApplied> {
    const running = this.activeJob();
    if (running) throw new UpdateRefused(`an update job is running (job ${running.id})`);
    const applied = await applyConfigMigration(this.#options.projectDir, this.#options.now());
    if (applied.needed)
      this.#options.log.warn(
        { keys: applied.items.map((item) => `${item.key}→${item.to ?? '(removed)'}`), backups: applied.backups },
        'config migration applied; the new values take effect at the next start',
      );
    return applied;
  }

  /**
   * Points `current` back at the previous version (bot). A rollback is one of the update jobs: it
   * takes the job slot before it reads anything, so a second rollback or an apply meanwhile is
   * refused (409) instead of undoing it (docs/rules.md#update-one-job). Answers when it is done.
   */
  async rollback(restart = false): Promise<RollbackOutcome> {
    if (this.bot === null) throw new UpdateRefused(layoutRefusal());
    const bot = this.bot;
    let refused: UpdateRefused | null = null;
    let outcome: { version: string; before: string | null } | null = null;
    const job = this.#options.jobs.start(UPDATE_JOB, 'rollback', async () => {
      try {
        outcome = await this.#rollBack(bot);
      } catch (error) {
        refused =
          error instanceof UpdateRefused
            ? error
            : new UpdateRefused(error instanceof Error ? error.message : String(error));
        throw new JobFailure(refused.message);
      }
      return { result: { version: outcome.version, previous_version: outcome.before }, message: 'rolled back' };
    });
    await finished(job);
    if (refused !== null) throw refused;
    if (outcome === null) throw new UpdateRefused(job.snapshot().error ?? 'the rollback did not finish');
    const { version, before } = outcome;
    this.#options.log.warn({ from: before, to: version }, 'update: rolled back');
    const deployment = await this.#options.deployment();
    const scheduled = restart && (this.#options.requestRestart?.(deployment === 'container') ?? false);
    return {
      version,
      previous_version: before,
      message: scheduled
        ? `current is ${version} again; restarting`
        : `current is ${version} again; it runs after a restart`,
      restart_scheduled: scheduled,
    };
  }

  async #rollBack(bot: VersionStore): Promise<{ version: string; before: string | null }> {
    const before = await bot.current();
    const previous = await bot.previous();
    if (previous === null || previous === before) throw new UpdateRefused('there is no previous version to go back to');
    const fit = await migrationsFit(
      bot.versionPath(previous),
      this.#options.projectDir,
      this.#options.env,
      this.#timing.migrateTimeoutMs,
    );
    if (!fit.ok)
      throw new UpdateRefused(
        `${previous} cannot run on this database (${fit.detail}): restore a backup taken before the update ` +
          `instead; nothing was changed`,
      );
    return { version: await bot.rollback(), before };
  }

  job(id: string): Job | undefined {
    const job = this.#options.jobs.get(id);
    return job?.kind === UPDATE_JOB ? job : undefined;
  }

  activeJob(): Job | undefined {
    return this.#options.jobs.active(UPDATE_JOB);
  }

  async #downloads(root: string): Promise<string> {
    const dir = join(root, '.downloads');
    await mkdir(dir, { recursive: true, mode: 0o700 });
    return dir;
  }
}
