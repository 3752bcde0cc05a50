/**
 * The hub's moderation state (docs/hub.md#moderation): reports per deployment, withdrawn answers,
 * blocked deployments and the moderators' audit log. Apart from the corpus tables so that what is
 * served (hub-store.ts) and what is withdrawn from it change independently; each write is one
 * transaction on either engine.
 */
import { sql } from 'kysely';
import { readRows, type SqlEngine } from '../sql/engine.ts';
import { exec, first } from '../sql/program.ts';
import { bound } from '../sql/query.ts';
import type { HubDatabase } from './schema.ts';

/** An answer as reports and withdrawals name it: context keywords and answer keywords, and their hashes. */
export interface AnswerRef {
  keywords: string;
  hash: string;
  answerKeywords: string;
  answerHash: string;
}

export type WithdrawReason = 'reports' | 'moderator';

export interface Withdrawal {
  keywords: string;
  answerKeywords: string;
  reason: WithdrawReason;
  withdrawnAt: number;
}

export interface PoolAnswer {
  keywords: string;
  answerKeywords: string;
  count: number;
  time: number;
  reports: number;
  withdrawn: WithdrawReason | null;
}

export interface DeploymentSummary {
  deploymentId: string;
  enrolledAt: number;
  blocked: boolean;
  contributeOk: number;
  reports: number;
}

export interface AuditEntry {
  id: number;
  at: number;
  action: string;
  target: string;
  address: string;
  detail: string;
}

/** `%` and `_` of a search text taken literally in LIKE (escape character `\`). */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function likePattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

export class HubModerationStore {
  constructor(readonly engine: SqlEngine<HubDatabase>) {}

  /**
   * Records `deploymentId`'s report of an answer (a repeat changes nothing) and withdraws the
   * answer once `threshold` distinct deployments reported it. Returns the distinct reports and
   * whether the answer is withdrawn now.
   */
  report(ref: AnswerRef, deploymentId: string, threshold: number, now: number) {
    const db = this.engine.db;
    return this.engine.run(
      function* () {
        yield* exec(
          bound(
            db
              .insertInto('hub_report')
              .values({
                keywords_hash: ref.hash,
                answer_hash: ref.answerHash,
                deployment_id: deploymentId,
                keywords: ref.keywords,
                answer_keywords: ref.answerKeywords,
                reported_at: now,
              })
              .onConflict((c) => c.columns(['keywords_hash', 'answer_hash', 'deployment_id']).doNothing()),
          ),
        );
        const counted = yield* first(
          bound(
            db
              .selectFrom('hub_report')
              .select((e) => e.fn.countAll<number>().as('reports'))
              .where('keywords_hash', '=', ref.hash)
              .where('answer_hash', '=', ref.answerHash),
          ),
        );
        const reports = Number(counted?.reports ?? 0);
        const current = yield* first(
          bound(
            db
              .selectFrom('hub_withdrawal')
              .select(['restored_at'])
              .where('keywords_hash', '=', ref.hash)
              .where('answer_hash', '=', ref.answerHash),
          ),
        );
        // A moderator's restore stands until reports made after it reach the line again.
        const withdrawnNow = current !== undefined && current.restored_at === null;
        if (!withdrawnNow && reports >= threshold) {
          const restoredAt = current?.restored_at ?? null;
          const since = restoredAt === null ? reports : yield* reportsAfter(ref, Number(restoredAt));
          if (since >= threshold) {
            yield* upsertWithdrawal(ref, 'reports', now);
            return { reports, withdrawn: true };
          }
        }
        return { reports, withdrawn: withdrawnNow };
      },
      { write: true },
    );

    function* reportsAfter(answer: AnswerRef, after: number) {
      const row = yield* first(
        bound(
          db
            .selectFrom('hub_report')
            .select((e) => e.fn.countAll<number>().as('reports'))
            .where('keywords_hash', '=', answer.hash)
            .where('answer_hash', '=', answer.answerHash)
            .where('reported_at', '>=', after),
        ),
      );
      return Number(row?.reports ?? 0);
    }

    function* upsertWithdrawal(answer: AnswerRef, reason: WithdrawReason, at: number) {
      yield* exec(bound(withdrawalUpsert(db, answer, reason, at)));
    }
  }

  /** A moderator's withdrawal; false when it was withdrawn already. */
  async withdraw(ref: AnswerRef, now: number): Promise<boolean> {
    const db = this.engine.db;
    return this.engine.run(
      function* () {
        const current = yield* first(
          bound(
            db
              .selectFrom('hub_withdrawal')
              .select(['restored_at'])
              .where('keywords_hash', '=', ref.hash)
              .where('answer_hash', '=', ref.answerHash),
          ),
        );
        if (current && current.restored_at === null) return false;
        yield* exec(bound(withdrawalUpsert(db, ref, 'moderator', now)));
        return true;
      },
      { write: true },
    );
  }

  /** Serves the answer again; false when it was not withdrawn. */
  async restore(ref: AnswerRef, now: number): Promise<boolean> {
    const db = this.engine.db;
    return this.engine.run(
      function* () {
        const changed = yield* exec(
          bound(
            db
              .updateTable('hub_withdrawal')
              .set({ restored_at: now })
              .where('keywords_hash', '=', ref.hash)
              .where('answer_hash', '=', ref.answerHash)
              .where('restored_at', 'is', null),
          ),
        );
        return changed > 0;
      },
      { write: true },
    );
  }

  /** Every answer withdrawn now, by context hash (what serving leaves out; few rows). */
  async withdrawnNow(): Promise<Map<string, Set<string>>> {
    const db = this.engine.db;
    const found = await readRows(
      this.engine,
      bound(db.selectFrom('hub_withdrawal').select(['keywords_hash', 'answer_hash']).where('restored_at', 'is', null)),
    );
    const byContext = new Map<string, Set<string>>();
    for (const row of found) {
      const answers = byContext.get(row.keywords_hash) ?? new Set<string>();
      answers.add(row.answer_hash);
      byContext.set(row.keywords_hash, answers);
    }
    return byContext;
  }

  /** Withdrawn answers (still withdrawn) from `since` on, oldest first. */
  async withdrawnSince(since: number, limit: number): Promise<Withdrawal[]> {
    const db = this.engine.db;
    const found = await readRows(
      this.engine,
      bound(
        db
          .selectFrom('hub_withdrawal')
          .select(['keywords', 'answer_keywords', 'reason', 'withdrawn_at'])
          .where('withdrawn_at', '>=', since)
          .where('restored_at', 'is', null)
          .orderBy('withdrawn_at')
          .orderBy('keywords_hash')
          .limit(limit),
      ),
    );
    return found.map((row) => ({
      keywords: row.keywords,
      answerKeywords: row.answer_keywords,
      reason: row.reason === 'moderator' ? 'moderator' : 'reports',
      withdrawnAt: Number(row.withdrawn_at),
    }));
  }

  /** The pool's answers whose context or answer keywords contain `text`, with reports and state. */
  async searchAnswers(text: string, limit: number, offset: number): Promise<PoolAnswer[]> {
    const db = this.engine.db;
    const pattern = likePattern(text);
    const found = await readRows(
      this.engine,
      bound(
        db
          .selectFrom('hub_answer as a')
          .innerJoin('hub_context as c', 'c.id', 'a.context_id')
          .leftJoin('hub_withdrawal as w', (join) =>
            join.onRef('w.keywords_hash', '=', 'c.keywords_hash').onRef('w.answer_hash', '=', 'a.keywords_hash'),
          )
          .select((e) => [
            'c.keywords as keywords',
            'a.keywords as answer_keywords',
            'a.count as count',
            'a.time as time',
            'w.reason as reason',
            'w.restored_at as restored_at',
            e
              .selectFrom('hub_report as r')
              .select((r) => r.fn.countAll<number>().as('n'))
              .whereRef('r.keywords_hash', '=', 'c.keywords_hash')
              .whereRef('r.answer_hash', '=', 'a.keywords_hash')
              .as('reports'),
          ])
          .where((e) =>
            text === ''
              ? sql<boolean>`1 = 1`
              : e.or([
                  sql<boolean>`c.keywords LIKE ${pattern} ESCAPE '\\'`,
                  sql<boolean>`a.keywords LIKE ${pattern} ESCAPE '\\'`,
                ]),
          )
          .orderBy('a.count', 'desc')
          .orderBy('a.id')
          .limit(limit)
          .offset(offset),
      ),
    );
    return found.map((row) => ({
      keywords: row.keywords,
      answerKeywords: row.answer_keywords,
      count: Number(row.count),
      time: Number(row.time),
      reports: Number(row.reports ?? 0),
      withdrawn:
        row.reason === null || row.restored_at !== null ? null : row.reason === 'moderator' ? 'moderator' : 'reports',
    }));
  }

  /** Deployments whose id starts with `prefix`, newest enrollment first. */
  async deployments(prefix: string, limit: number): Promise<DeploymentSummary[]> {
    const db = this.engine.db;
    const found = await readRows(
      this.engine,
      bound(
        db
          .selectFrom('hub_deployment as d')
          .leftJoin('hub_usage as u', 'u.deployment_id', 'd.deployment_id')
          .select((e) => [
            'd.deployment_id as deployment_id',
            'd.enrolled_at as enrolled_at',
            'd.blocked as blocked',
            'u.contribute_ok as contribute_ok',
            e
              .selectFrom('hub_report as r')
              .select((r) => r.fn.countAll<number>().as('n'))
              .whereRef('r.deployment_id', '=', 'd.deployment_id')
              .as('reports'),
          ])
          .where(sql<boolean>`d.deployment_id LIKE ${`${escapeLike(prefix)}%`} ESCAPE '\\'`)
          .orderBy('d.blocked', 'desc')
          .orderBy('d.enrolled_at', 'desc')
          .limit(limit),
      ),
    );
    return found.map((row) => ({
      deploymentId: row.deployment_id,
      enrolledAt: Number(row.enrolled_at),
      blocked: Number(row.blocked) === 1,
      contributeOk: Number(row.contribute_ok ?? 0),
      reports: Number(row.reports ?? 0),
    }));
  }

  /** Blocks a deployment (named as 0002_agreement's store names it); false when there is none. */
  blockDeployment(deploymentId: string): Promise<boolean> {
    return this.#setBlocked(deploymentId, 1);
  }

  unblockDeployment(deploymentId: string): Promise<boolean> {
    return this.#setBlocked(deploymentId, 0);
  }

  async blockedDeployments(): Promise<Set<string>> {
    const db = this.engine.db;
    const found = await readRows(
      this.engine,
      bound(db.selectFrom('hub_deployment').select('deployment_id').where('blocked', '=', 1)),
    );
    return new Set(found.map((row) => row.deployment_id));
  }

  async audit(entry: Omit<AuditEntry, 'id'>): Promise<void> {
    const db = this.engine.db;
    await this.engine.run(() => exec(bound(db.insertInto('hub_audit').values(entry))), { write: true });
  }

  async auditLog(limit: number): Promise<AuditEntry[]> {
    const db = this.engine.db;
    const found = await readRows(
      this.engine,
      bound(db.selectFrom('hub_audit').selectAll().orderBy('id', 'desc').limit(limit)),
    );
    return found.map((row) => ({ ...row, id: Number(row.id), at: Number(row.at) }));
  }

  async #setBlocked(deploymentId: string, blocked: 0 | 1): Promise<boolean> {
    const db = this.engine.db;
    const changed = await this.engine.run(
      () => exec(bound(db.updateTable('hub_deployment').set({ blocked }).where('deployment_id', '=', deploymentId))),
      { write: true },
    );
    return changed > 0;
  }
}

function withdrawalUpsert(db: SqlEngine<HubDatabase>['db'], ref: AnswerRef, reason: WithdrawReason, at: number) {
  return db
    .insertInto('hub_withdrawal')
    .values({
      keywords_hash: ref.hash,
      answer_hash: ref.answerHash,
      keywords: ref.keywords,
      answer_keywords: ref.answerKeywords,
      reason,
      withdrawn_at: at,
      restored_at: null,
    })
    .onConflict((c) =>
      c.columns(['keywords_hash', 'answer_hash']).doUpdateSet({ reason, withdrawn_at: at, restored_at: null }),
    );
}
