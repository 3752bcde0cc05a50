/**
 * The message-log retention of the database domain: a preview answers what a policy would delete
 * and a confirmation token bound to that policy; applying it with the token runs a job that
 * deletes in short steps (src/store/message-retention.ts). Shares the backup job kind, so a
 * retention run and a backup never overlap.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { MessageRetention, RetentionPolicy, RetentionPreview } from '../../store/message-retention.ts';
import type { Job, JobRegistry } from '../jobs/index.ts';

export const RETENTION_JOB = 'db-backup';
const CONFIRM_TTL_SEC = 600;

export class RetentionTokenError extends Error {
  override readonly name = 'RetentionTokenError';
}

export class RetentionService {
  readonly #secret = randomBytes(32);

  constructor(
    private readonly retention: MessageRetention,
    private readonly jobs: JobRegistry,
    /** Unix milliseconds. */
    private readonly now: () => number,
  ) {}

  async preview(policy: RetentionPolicy): Promise<RetentionPreview & { confirm_token: string; expires_at: number }> {
    const nowSec = Math.floor(this.now() / 1000);
    const preview = await this.retention.preview(policy, nowSec);
    const expires = nowSec + CONFIRM_TTL_SEC;
    return { ...preview, confirm_token: `${expires}.${this.#sign(policy, expires)}`, expires_at: expires };
  }

  /** Starts the deleting job; RetentionTokenError for a wrong or expired token, JobBusyError when busy. */
  apply(policy: RetentionPolicy, token: string): Job {
    const [expiresText = '', signature = ''] = token.split('.');
    const expires = Number(expiresText);
    const expected = Buffer.from(this.#sign(policy, expires), 'hex');
    const given = Buffer.from(signature, 'hex');
    if (
      given.length !== expected.length ||
      !timingSafeEqual(given, expected) ||
      !Number.isSafeInteger(expires) ||
      expires * 1000 < this.now()
    ) {
      throw new RetentionTokenError('confirm_token: missing, wrong, expired or for another policy; preview again');
    }
    return this.jobs.start(RETENTION_JOB, 'retention', async (context) => {
      const deleted = await this.retention.apply(
        policy,
        Math.floor(this.now() / 1000),
        (count, scanned, maxId) =>
          context.progress(Math.round((scanned / Math.max(1, maxId)) * 100), `${count} rows deleted`),
        context.signal,
      );
      return { result: { deleted }, message: `${deleted} message log rows deleted` };
    });
  }

  #sign(policy: RetentionPolicy, expires: number): string {
    return createHmac('sha256', this.#secret)
      .update(`${policy.days ?? '-'}\0${policy.maxRows ?? '-'}\0${expires}`)
      .digest('hex');
  }
}
