/**
 * The AI extension as the console uses it: the extension config and the settings it keeps in
 * step, the connection test, the install status and install jobs, the logs and the music-service
 * login proxy. Built once by the composition root, which also stops it (running jobs are aborted).
 */
import { join } from 'node:path';
import { Mutex } from 'async-mutex';
import type { Log } from '../../common/log.ts';
import type { DeploymentKind } from '../deployment.ts';
import { Git, redactUrlCredentials } from '../git.ts';
import {
  JobBusyError,
  type Job,
  type JobContext,
  type JobOutcome,
  type JobRegistry,
  type JobSnapshot,
} from '../jobs/index.ts';
import { checkUpstream, inspectCheckout, type UpstreamCheck } from './checkout.ts';
import { AiConfigFile, type AiExtensionConfig } from './config-file.ts';
import {
  effectiveToken,
  mergeInput,
  publicConfig,
  syncSettings,
  type ConfigInput,
  type PublicAiConfig,
  type TokenSource,
} from './config-sync.ts';
import { endpointOf, isLocalHost, type AiEndpoint } from './endpoint.ts';
import { bootstrapStep, cloneStep, updateStep, type StepEnvironment } from './install-steps.ts';
import { installStatus, refusalOf, type InstallAction, type InstallStatus } from './install-status.ts';
import {
  AI_CONFIG_FILE,
  DEFAULT_AI_PORT,
  DEFAULT_AI_TIMING,
  EXTERNAL_PROBE_TIMEOUT_MS,
  INSTALL_PROGRESS,
  MANAGED_RUNTIME_DIR,
  type AiTiming,
} from './limits.ts';
import type { LogFolders, LogKind } from './log-files.ts';
import { planLogStream, readLogTail, type LogStreamPlan, type LogTail } from './logs.ts';
import { callNcm, NCM_PATHS, type NcmReply } from './ncm.ts';
import { probeAi, type ProbeResult } from './probe.ts';
import type { AiSettings } from './settings.ts';
import { writeBackDefaults } from './write-back.ts';
import { errorMessage } from '../../common/errors.ts';

/** The job kind of installs: one at a time. */
export const AI_INSTALL_JOB = 'ai-install';

export interface AiExtensionOptions {
  settings: AiSettings;
  jobs: JobRegistry;
  fetch: typeof fetch;
  log: Log;
  /** Unix milliseconds. */
  now: () => number;
  /** The process environment; programs get it without Chorus's own settings. */
  env: Readonly<Record<string, string | undefined>>;
  deployment: () => Promise<DeploymentKind>;
  /** Where relative log paths are taken from (the project folder). */
  baseDir: string;
  /** An AI checkout beside the install folder, if that layout is supported here. */
  siblingRoot: string | null;
  /** The container's shared log volume, when it exists. */
  sharedLogDir: string | null;
  timing?: Partial<AiTiming>;
  git?: Git;
}

export interface InstallRequest {
  action: InstallAction;
  noStart: boolean;
  useGpu: boolean;
}

export interface SavedConfig {
  config: PublicAiConfig;
  synced_ai_server: AiEndpoint & { changed: boolean };
  synced_ai_token: boolean;
  /** Where the token sent to the AI service now comes from (the console words it). */
  ai_token_source: TokenSource;
  /** Why the settings could not be synced (the extension config itself was saved). */
  sync_error: string | null;
}

/** An install that cannot start (the console answers 409 with the message). */
export class InstallRefused extends Error {
  override readonly name = 'InstallRefused';
}

export class AiExtension {
  readonly timing: AiTiming;
  readonly #options: AiExtensionOptions;
  readonly #file: AiConfigFile;
  readonly #git: Git;
  readonly #managedRoot: string;
  #upstreamCache: { head: string; at: number; check: UpstreamCheck } | null = null;
  /** A save and its settings sync run whole, one at a time: the file and the settings agree. */
  readonly #saveLock = new Mutex();

  constructor(options: AiExtensionOptions) {
    this.#options = options;
    this.timing = { ...DEFAULT_AI_TIMING, ...options.timing };
    const dataDir = options.settings.current().dataDir;
    this.#file = new AiConfigFile(join(dataDir, AI_CONFIG_FILE));
    this.#managedRoot = join(dataDir, ...MANAGED_RUNTIME_DIR);
    this.#git = options.git ?? new Git(options.env);
  }

  get configPath(): string {
    return this.#file.path;
  }

  get managedRoot(): string {
    return this.#managedRoot;
  }

  async config(): Promise<PublicAiConfig> {
    return publicConfig(await this.#file.load());
  }

  /** Saves the extension config (see mergeInput for the token) and syncs host, port and token settings. */
  saveConfig(input: ConfigInput): Promise<SavedConfig> {
    return this.#saveLock.runExclusive(() => this.#saveConfig(input));
  }

  async #saveConfig(input: ConfigInput): Promise<SavedConfig> {
    const config = (await this.#file.update(({ config: stored }) => mergeInput(stored, input))) as AiExtensionConfig;
    const sync = await syncSettings(this.#options.settings, config);
    if (sync.error !== null) this.#options.log.warn({ err: { message: sync.error } }, 'AI settings not synced');
    return {
      config: publicConfig(config),
      synced_ai_server: sync.server,
      synced_ai_token: sync.tokenChanged,
      ai_token_source: sync.tokenSource,
      sync_error: sync.error,
    };
  }

  async test(): Promise<ProbeResult> {
    return probeAi(this.#options.fetch, await this.#callConfig(), this.#options.now);
  }

  async installStatus(): Promise<InstallStatus & { active_job: JobSnapshot | null }> {
    const status = await this.#status(true);
    return { ...status, active_job: this.activeJob()?.snapshot() ?? null };
  }

  /** Starts an install job, or throws InstallRefused / JobBusyError. */
  async startInstall(request: InstallRequest): Promise<Job> {
    const running = this.activeJob();
    if (running) throw new JobBusyError(running);
    const status = await this.#status(false);
    const refusal = refusalOf(status, request.action);
    if (refusal !== null) throw new InstallRefused(refusal);
    const log = this.#options.log;
    const job = this.#options.jobs.start(AI_INSTALL_JOB, request.action, async (context) => {
      try {
        const outcome = await this.#install(context, request, status);
        log.info({ job_id: job.id, action: request.action }, 'AI install job finished');
        return outcome;
      } catch (error) {
        const reason = errorMessage(error);
        log.warn({ job_id: job.id, action: request.action, reason }, 'AI install job failed');
        throw error;
      } finally {
        this.#upstreamCache = null;
      }
    });
    log.info({ job_id: job.id, action: request.action }, 'AI install job started');
    return job;
  }

  job(id: string): Job | undefined {
    const job = this.#options.jobs.get(id);
    return job?.kind === AI_INSTALL_JOB ? job : undefined;
  }

  activeJob(): Job | undefined {
    return this.#options.jobs.active(AI_INSTALL_JOB);
  }

  async logs(kind: LogKind, lines: number): Promise<LogTail> {
    return readLogTail(this.#options.fetch, await this.#callConfig(), this.#folders(), kind, lines);
  }

  async logStream(kind: LogKind, resumeAt: number | null): Promise<LogStreamPlan> {
    return planLogStream(this.#options.fetch, await this.#callConfig(), this.#folders(), kind, resumeAt, this.timing);
  }

  async ncmStatus(): Promise<NcmReply> {
    return callNcm(this.#options.fetch, await this.#callConfig(), 'GET', NCM_PATHS.status);
  }

  async ncmSendSms(phone: string, ctcode: number): Promise<NcmReply> {
    return callNcm(this.#options.fetch, await this.#callConfig(), 'POST', NCM_PATHS.sendSms, { phone, ctcode });
  }

  async ncmVerifySms(phone: string, captcha: string, ctcode: number): Promise<NcmReply> {
    return callNcm(this.#options.fetch, await this.#callConfig(), 'POST', NCM_PATHS.verifySms, {
      phone,
      captcha,
      ctcode,
    });
  }

  async ncmLogout(): Promise<NcmReply> {
    return callNcm(this.#options.fetch, await this.#callConfig(), 'POST', NCM_PATHS.logout, {});
  }

  /** The config for requests to the AI service, with the token in effect (see effectiveToken). */
  async #callConfig(): Promise<AiExtensionConfig> {
    const config = await this.#file.load();
    return { ...config, token: effectiveToken(this.#options.settings, config) };
  }

  #folders(): LogFolders {
    return {
      baseDir: this.#options.baseDir,
      aiRoots: [this.#managedRoot, ...(this.#options.siblingRoot ? [this.#options.siblingRoot] : [])],
      sharedLogDir: this.#options.sharedLogDir,
    };
  }

  #endpoint(config: AiExtensionConfig): AiEndpoint {
    const snapshot = this.#options.settings.current();
    const set =
      snapshot.sourceOf('CHORUS_AI_SERVER_HOST') !== 'default' ||
      snapshot.sourceOf('CHORUS_AI_SERVER_PORT') !== 'default';
    if (set) return { host: snapshot.ai.serverHost, port: snapshot.ai.serverPort };
    return endpointOf(config.base_url) ?? { host: '127.0.0.1', port: DEFAULT_AI_PORT };
  }

  async #status(withUpstream: boolean): Promise<InstallStatus> {
    const config = await this.#callConfig();
    const snapshot = this.#options.settings.current();
    const managed = await inspectCheckout(this.#managedRoot);
    const sibling = this.#options.siblingRoot ? await inspectCheckout(this.#options.siblingRoot) : null;
    const hasCheckout = managed.git || managed.script || (sibling?.script ?? false);
    const serviceAnswers =
      !hasCheckout &&
      (
        await probeAi(
          this.#options.fetch,
          { ...config, timeout_sec: EXTERNAL_PROBE_TIMEOUT_MS / 1000 },
          this.#options.now,
        )
      ).ok;
    const gitAvailable = await this.#git.available(this.#options.baseDir);
    const endpoint = this.#endpoint(config);
    const upstream = withUpstream && gitAvailable && managed.git ? await this.#upstream() : null;
    return installStatus({
      managed,
      sibling,
      serviceAnswers,
      gitAvailable,
      gitUrl: redactUrlCredentials(snapshot.ai.repoUrl),
      deployment: await this.#options.deployment(),
      endpoint,
      endpointIsLocal: isLocalHost(endpoint.host),
      baseUrl: config.base_url,
      upstream,
    });
  }

  /** The upstream check, reused for a while per installed commit (it runs git fetch). */
  async #upstream(): Promise<UpstreamCheck> {
    const head = (await this.#git.output(['rev-parse', 'HEAD'], this.#managedRoot, 10_000)) ?? '';
    const cached = this.#upstreamCache;
    if (cached && cached.head === head && this.#options.now() - cached.at < this.timing.updateCheckTtlMs)
      return cached.check;
    const check = await checkUpstream(this.#git, this.#managedRoot);
    this.#upstreamCache = { head, at: this.#options.now(), check };
    return check;
  }

  async #install(context: JobContext, request: InstallRequest, status: InstallStatus): Promise<JobOutcome> {
    const snapshot = this.#options.settings.current();
    const config = await this.#file.load();
    const secrets = [snapshot.ai.apiToken, config.token].filter((secret) => secret.length >= 4);
    const step: StepEnvironment = {
      git: this.#git,
      env: this.#options.env,
      redact: (line) => secrets.reduce((text, secret) => text.split(secret).join('***'), redactUrlCredentials(line)),
    };
    const { action } = request;
    const result: Record<string, unknown> = { action };
    let root = status.ai_root;
    if (action === 'clone' || action === 'clone_and_bootstrap') {
      if (root === null) {
        Object.assign(result, await cloneStep(context, step, snapshot.ai.repoUrl, this.#managedRoot));
        root = this.#managedRoot;
      } else {
        context.progress(INSTALL_PROGRESS.fetchedOrCloned, `AI checkout already present at ${root}; clone skipped`);
        Object.assign(result, { ai_root: root, skipped_clone: true });
      }
      if (action === 'clone') {
        return {
          result,
          message: result.skipped_clone ? 'AI checkout already present; clone skipped' : 'clone finished',
        };
      }
    }
    if (root === null) throw new InstallRefused('no AI checkout here: clone it first');
    if (action === 'update') Object.assign(result, await updateStep(context, step, root));
    Object.assign(
      result,
      await bootstrapStep(context, step, root, {
        noStart: request.noStart,
        useGpu: request.useGpu,
        botPort: snapshot.server.port,
        token: snapshot.ai.apiToken,
      }),
    );
    context.progress(INSTALL_PROGRESS.writeBack, 'writing the default AI settings where none are set');
    try {
      Object.assign(result, await writeBackDefaults(this.#file, this.#options.settings, root));
    } catch (error) {
      const message = errorMessage(error);
      context.line(`warning: default AI settings not written: ${message}`);
      Object.assign(result, { wrote_ai_extension: false, wrote_ai_server: false, write_back_error: message });
    }
    return { result, message: action === 'update' ? 'update finished' : 'bootstrap finished' };
  }
}
