/**
 * `data/community-stats.json` (docs/rules.md#cfg-files): the deployment id
 * (a lower-case UUID v4, created once and kept), the `corpus_community` enrollment block, and the
 * heartbeat state. It holds a token, so it is written atomically with mode 0600.
 *
 * The file is read once (synchronously, at composition time) and kept in memory: `enrollment()`
 * is called on every corpus lookup and does no I/O. Writes go through one queue, so they never
 * interleave. Fields this version does not know are kept as they are.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ensurePrivateDir, writeFileAtomic } from '../config/index.ts';
import type { StoredEnrollment } from '../corpus/activation.ts';
import type { Log } from '../common/log.ts';
import { isObject } from './http.ts';
import { errorMessage } from '../common/errors.ts';

export const COMMUNITY_STATE_FILE = 'community-stats.json';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export interface CommunityStateOptions {
  path: string;
  log: Log;
  /** A shard worker only reads the file (the primary owns it). */
  readOnly?: boolean;
}

export class CommunityStateFile {
  readonly path: string;
  readonly #log: Log;
  readonly #readOnly: boolean;
  #document: Record<string, unknown>;
  #enrollment: StoredEnrollment | null;
  #deploymentId: string;
  /** The deployment id was made up here and is not on disk yet. */
  #dirty = false;
  #writes: Promise<void> = Promise.resolve();
  #seen: { mtimeMs: number; size: number } | null = null;

  constructor(options: CommunityStateOptions) {
    this.path = options.path;
    this.#log = options.log;
    this.#readOnly = options.readOnly ?? false;
    this.#document = this.#readNow();
    this.#enrollment = parseEnrollment(this.#document.corpus_community);
    const id = typeof this.#document.deployment_id === 'string' ? this.#document.deployment_id.toLowerCase() : '';
    if (UUID.test(id)) {
      this.#deploymentId = id;
    } else {
      this.#deploymentId = randomUUID();
      this.#dirty = true;
    }
  }

  get deploymentId(): string {
    return this.#deploymentId;
  }

  /** The stored enrollment; the same object until it changes (callers memoise on identity). */
  enrollment(): StoredEnrollment | null {
    return this.#enrollment;
  }

  get heartbeatEndpoint(): string {
    return typeof this.#document.heartbeat_endpoint === 'string' ? this.#document.heartbeat_endpoint : '';
  }

  get lastHeartbeatOkUnix(): number | null {
    return intOrNull(this.#document.last_heartbeat_ok_unix);
  }

  get corpusHotSnapshotUnix(): number | null {
    return intOrNull(this.#document.corpus_hot_snapshot_unix);
  }

  /** Writes the deployment id when it was just created (the primary, once at start). */
  persist(): Promise<void> {
    if (!this.#dirty) return this.#writes;
    return this.#update({});
  }

  /** Replaces the `corpus_community` block (docs/rules.md#cfg-files). */
  setEnrollment(enrollment: StoredEnrollment): Promise<void> {
    this.#enrollment = Object.freeze({ ...enrollment });
    return this.#update({ corpus_community: enrollmentBlock(enrollment) });
  }

  recordHeartbeat(endpoint: string, unix: number): Promise<void> {
    return this.#update({ heartbeat_endpoint: endpoint, last_heartbeat_ok_unix: unix });
  }

  setCorpusHotSnapshotUnix(unix: number): Promise<void> {
    return this.#update({ corpus_hot_snapshot_unix: unix });
  }

  /**
   * Re-reads the file when it changed on disk (size or mtime): a shard worker picks up the
   * enrollment its primary stored. Resolves to whether the enrollment changed.
   */
  async reloadIfChanged(): Promise<boolean> {
    let info;
    try {
      info = await stat(this.path);
    } catch {
      return false;
    }
    const seen = { mtimeMs: info.mtimeMs, size: info.size };
    if (this.#seen && this.#seen.mtimeMs === seen.mtimeMs && this.#seen.size === seen.size) return false;
    this.#seen = seen;
    let document: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(await readFile(this.path, 'utf8'));
      if (!isObject(parsed)) return false;
      document = parsed;
    } catch {
      return false;
    }
    this.#document = document;
    const id = typeof document.deployment_id === 'string' ? document.deployment_id.toLowerCase() : '';
    if (UUID.test(id)) this.#deploymentId = id;
    const next = parseEnrollment(document.corpus_community);
    if (sameEnrollment(next, this.#enrollment)) return false;
    this.#enrollment = next;
    return true;
  }

  /** Waits for the writes queued so far. */
  flush(): Promise<void> {
    return this.#writes;
  }

  #update(fields: Record<string, unknown>): Promise<void> {
    this.#document = { ...this.#document, deployment_id: this.#deploymentId, ...fields };
    if (this.#readOnly) return this.#writes;
    this.#dirty = false;
    const document = this.#document;
    const write = async () => {
      await ensurePrivateDir(dirname(this.path));
      await writeFileAtomic(this.path, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600 });
    };
    const next = this.#writes.then(write, write);
    // A failed write is reported to the caller; the queue goes on with the next one.
    this.#writes = next.catch((error: unknown) => {
      this.#log.warn({ file: this.path, error: errorMessage(error) }, 'community state file not written');
    });
    return next;
  }

  #readNow(): Record<string, unknown> {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'ENOENT') {
        this.#log.warn({ file: this.path, error: errorMessage(error) }, 'community state file unreadable; starting empty');
      }
      return {};
    }
    try {
      const parsed: unknown = JSON.parse(text);
      if (isObject(parsed)) return parsed;
    } catch {
      // Reported below.
    }
    this.#log.warn({ file: this.path }, 'community state file is not a JSON object; starting empty');
    return {};
  }
}

function parseEnrollment(block: unknown): StoredEnrollment | null {
  if (!isObject(block)) return null;
  const apiBase = typeof block.api_base === 'string' ? block.api_base.trim().replace(/\/+$/, '') : '';
  const token = typeof block.corpus_token === 'string' ? block.corpus_token.trim() : '';
  if (apiBase === '' || token === '') return null;
  return Object.freeze({
    apiBase,
    token,
    enrolledAt: intOrNull(block.enrolled_at),
    expiresAt: intOrNull(block.expires_at),
    contribute: typeof block.contribute === 'boolean' ? block.contribute : null,
  });
}

function enrollmentBlock(enrollment: StoredEnrollment): Record<string, unknown> {
  return {
    api_base: enrollment.apiBase,
    corpus_token: enrollment.token,
    enrolled_at: enrollment.enrolledAt,
    ...(enrollment.expiresAt !== null ? { expires_at: enrollment.expiresAt } : {}),
    ...(enrollment.contribute !== null ? { contribute: enrollment.contribute } : {}),
  };
}

function sameEnrollment(a: StoredEnrollment | null, b: StoredEnrollment | null): boolean {
  if (a === null || b === null) return a === b;
  return (
    a.apiBase === b.apiBase &&
    a.token === b.token &&
    a.enrolledAt === b.enrolledAt &&
    a.expiresAt === b.expiresAt &&
    a.contribute === b.contribute
  );
}

function intOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : null;
}

