/**
 * The hub's repository: every piece of shared state (tokens, usage and rate counters, corpus, hot
 * snapshots, heartbeats) lives in the database, so any number of hub processes on one PostgreSQL
 * serve the same data. Each operation is one unit of work (src/sql/program.ts) run by the engines
 * it shares with the bot store; writes are one transaction each.
 */
import { readFirst, readRows, type SqlEngine } from '../sql/engine.ts';
import { exec, first, rows, type Program } from '../sql/program.ts';
import { CONTEXT_ANSWERS_MAX, HOT } from './limits.ts';
import { hubQueries, type HeartbeatRow, type HubQueries } from './queries.ts';
import type { HubDatabase } from './schema.ts';
import { agreedAnswerOf, insertContext, policyOf, replaceHotSnapshot, upsertAnswer } from './hub-programs.ts';
import { hotCandidatesOf } from './hot-candidates.ts';
import type {
  Agreement,
  Contribution,
  Deployment,
  Gate,
  HeartbeatInput,
  HotCandidate,
  HotItemInput,
  Policy,
  StoredContext,
  Usage,
} from './hub-types.ts';

export type * from './hub-types.ts';

export class HubStore {
  readonly #q: HubQueries;

  constructor(readonly engine: SqlEngine<HubDatabase>) {
    this.#q = hubQueries(engine.db);
  }

  /**
   * Issue the deployment's token. A first enrollment joins the cohort of the earliest deployment
   * enrolled from the same address since `cohortCutoff` (null: a cohort of its own). An existing
   * deployment's token is rotated only when `proofHash` is its current token's hash; otherwise
   * nothing is written and `refused` comes back (docs/hub.md#enrollment).
   */
  enroll(input: {
    deploymentId: string;
    tokenHash: string;
    proofHash: string | null;
    addressHash: string;
    cohortCutoff: number | null;
    policy: Policy;
    now: number;
    expiresAt: number | null;
  }): Promise<{ refused: true } | { refused: false; policy: Policy }> {
    const q = this.#q;
    const values = {
      deploymentId: input.deploymentId,
      tokenHash: input.tokenHash,
      read: input.policy.read ? 1 : 0,
      contribute: input.policy.contribute ? 1 : 0,
      readPerMinute: input.policy.readPerMinute,
      contributionsPerDay: input.policy.contributionsPerDay,
      now: input.now,
      expiresAt: input.expiresAt,
    };
    return this.engine.run(
      function* () {
        const existing = yield* first(q.enrollment({ deploymentId: input.deploymentId }));
        if (existing) {
          if (input.proofHash === null || existing.token_hash !== input.proofHash) return { refused: true as const };
          const rotated = yield* first(q.rotate({ ...values, oldHash: input.proofHash }));
          return rotated ? { refused: false as const, policy: policyOf(rotated) } : { refused: true as const };
        }
        if (input.cohortCutoff !== null && q.kind === 'postgres') {
          yield* first(q.lockAddress({ addressHash: input.addressHash }));
        }
        const sibling =
          input.cohortCutoff === null
            ? undefined
            : yield* first(q.cohortOf({ addressHash: input.addressHash, cutoff: input.cohortCutoff }));
        const created = yield* first(
          q.enroll({ ...values, cohort: sibling?.cohort || input.deploymentId, addressHash: input.addressHash }),
        );
        return created ? { refused: false as const, policy: policyOf(created) } : { refused: true as const };
      },
      { write: true },
    );
  }

  async deploymentByToken(tokenHash: string): Promise<Deployment | null> {
    const q = this.#q;
    const row = await readFirst(this.engine, q.deploymentByTokenHash({ tokenHash }));
    if (!row) return null;
    return {
      deploymentId: row.deployment_id,
      policy: policyOf(row),
      expiresAt: row.expires_at === null ? null : Number(row.expires_at),
      blocked: Number(row.blocked) === 1,
    };
  }

  /**
   * Blocks or unblocks a deployment (the hub operator's decision): while blocked its token is
   * refused with 403 and its contributions count toward nothing that is served. Returns false
   * when no such deployment is enrolled.
   */
  async setBlocked(deploymentId: string, blocked: boolean): Promise<boolean> {
    const q = this.#q;
    const row = await this.engine.run(
      () => first(q.setBlocked({ deploymentId: deploymentId.toLowerCase(), blocked: blocked ? 1 : 0 })),
      { write: true },
    );
    return row !== undefined;
  }

  /**
   * A context read: the context, the answers enough cohorts agree on (docs/hub.md#agreement), then
   * one statement counting the read (and a hit) in the deployment's read window. Over `limit`
   * (0 = none) the lookup is discarded and nothing is written.
   */
  readContext(input: {
    deploymentId: string;
    hash: string;
    now: number;
    window: number;
    limit: number;
    agreement: Agreement;
  }): Promise<{ limited: true } | { limited: false; context: StoredContext | null }> {
    const q = this.#q;
    return this.engine.run(function* () {
      const head = yield* first(q.contextByHash({ hash: input.hash }));
      const answers = head
        ? yield* rows(
            q.agreedAnswers({
              contextId: Number(head.id),
              min: input.agreement.minDeployments,
              cap: input.agreement.countPerDeploymentMax,
              max: CONTEXT_ANSWERS_MAX,
            }),
          )
        : [];
      // A context without an agreed answer is not served, unless the rule is off (the origin
      // serves a context that has no answers).
      const served = head !== undefined && (answers.length > 0 || input.agreement.minDeployments <= 1);
      const counted = yield* first(
        q.countRead({
          deploymentId: input.deploymentId,
          now: input.now,
          window: input.window,
          limit: input.limit,
          hit: served ? 1 : 0,
        }),
      );
      if (!counted) return { limited: true as const };
      if (!served) return { limited: false as const, context: null };
      return {
        limited: false as const,
        context: {
          keywords: head.keywords,
          time: Number(head.time),
          triggerCount: Number(head.trigger_count),
          answers: answers.map(agreedAnswerOf),
        },
      };
    });
  }

  /**
   * One contribution in one transaction: counted in the deployment's contribution window (over
   * `limit` nothing is written), then merged into the corpus with the deployment's own share.
   */
  contribute(input: {
    deploymentId: string;
    now: number;
    window: number;
    limit: number;
    contribution: Contribution;
  }): Promise<{ limited: boolean }> {
    const q = this.#q;
    return this.engine.run(
      function* () {
        const counted = yield* first(
          q.countContribution({
            deploymentId: input.deploymentId,
            now: input.now,
            window: input.window,
            limit: input.limit,
          }),
        );
        if (!counted) return { limited: true };
        const contribution = input.contribution;
        if (contribution.op === 'upsert_answer') yield* upsertAnswer(q, input.deploymentId, contribution);
        else yield* insertContext(q, input.deploymentId, contribution);
        return { limited: false };
      },
      { write: true },
    );
  }

  async usage(deploymentId: string): Promise<Usage> {
    const q = this.#q;
    const row = await readFirst(this.engine, q.usage({ deploymentId }));
    return {
      readLookups: row?.read_lookups ?? 0,
      readHits: row?.read_hits ?? 0,
      contributeOk: row?.contribute_ok ?? 0,
      updatedAt: row?.updated_at ?? null,
    };
  }

  /**
   * Replace the deployment's hot snapshot. With `minIntervalSec` > 0 an upload sooner than that
   * after the previous accepted one is refused (nothing written).
   */
  uploadHot(input: {
    deploymentId: string;
    now: number;
    asOf: number;
    items: readonly HotItemInput[];
    minIntervalSec: number;
  }): Promise<Gate> {
    const q = this.#q;
    return this.engine.run(
      function* (): Program<Gate> {
        if (input.minIntervalSec > 0) {
          const claimed = yield* first(
            q.claimHotUpload({
              deploymentId: input.deploymentId,
              now: input.now,
              cutoff: input.now - input.minIntervalSec,
            }),
          );
          if (!claimed) {
            const last = yield* first(q.hotUploadedAt({ deploymentId: input.deploymentId }));
            return { ok: false, retryAt: (last?.hot_uploaded_at ?? input.now) + input.minIntervalSec };
          }
        }
        yield* replaceHotSnapshot(q, input.deploymentId, input.asOf, input.items);
        return { ok: true };
      },
      { write: true },
    );
  }

  /**
   * Record a heartbeat (and replace the hot snapshot it carries). With `minIntervalSec` > 0 a
   * heartbeat sooner than that after the previous accepted one is refused (nothing written).
   */
  heartbeat(input: {
    heartbeat: HeartbeatInput;
    now: number;
    minIntervalSec: number;
    hot: { asOf: number; items: readonly HotItemInput[] } | null;
  }): Promise<Gate> {
    const q = this.#q;
    const beat = input.heartbeat;
    return this.engine.run(
      function* (): Program<Gate> {
        const row: HeartbeatRow = {
          deployment_id: beat.deploymentId,
          first_seen: input.now,
          last_seen: input.now,
          version: beat.version,
          online_bots: beat.onlineBots,
          catalog_bots: beat.catalogBots,
          sharded: beat.sharded ? 1 : 0,
          shard_workers: beat.shardWorkers,
        };
        const accepted = yield* first(
          q.heartbeat({ ...row, minInterval: input.minIntervalSec, cutoff: input.now - input.minIntervalSec }),
        );
        if (!accepted) {
          const last = yield* first(q.lastHeartbeat({ deploymentId: beat.deploymentId }));
          return { ok: false, retryAt: (last?.last_seen ?? input.now) + input.minIntervalSec };
        }
        if (input.hot) yield* replaceHotSnapshot(q, beat.deploymentId, input.hot.asOf, input.hot.items);
        return { ok: true };
      },
      { write: true },
    );
  }

  /** Fleet hot words: uploaded scores over snapshots newer than `cutoff`, enough cohorts agreeing. */
  async fleetHot(cutoff: number, limit: number, agreement: Agreement): Promise<HotCandidate[]> {
    const q = this.#q;
    const found = await readRows(this.engine, q.fleetHot({ cutoff, limit, min: agreement.minDeployments }));
    return found.map((row) => ({ keywords: row.keywords, score: Number(row.score), answers: [] }));
  }

  /**
   * Pool (`cutoff` null: all answers) or recent (answers newer than `cutoff`) hot words. Candidates
   * come from the stored totals (an index walk for the pool); each is then scored by its agreed
   * answers only (docs/hub.md#agreement), and one with none is dropped.
   */
  corpusHot(cutoff: number | null, limit: number, agreement: Agreement): Promise<HotCandidate[]> {
    const q = this.#q;
    return this.engine.run(function* () {
      const contexts = yield* rows(cutoff === null ? q.poolHot({ limit }) : q.recentHot({ cutoff, limit }));
      if (contexts.length === 0) return [];
      const answers = yield* rows(
        q.agreedHotAnswers({
          ids: q.listParam(contexts.map((row) => Number(row.id))),
          cutoff: cutoff ?? 0,
          min: agreement.minDeployments,
          cap: agreement.countPerDeploymentMax,
        }),
      );
      return hotCandidatesOf(contexts, answers, HOT.answerCandidatesPerItem);
    });
  }

  /** Deletes hot rows older than `hotCutoff`. */
  async housekeeping(hotCutoff: number): Promise<void> {
    const q = this.#q;
    await this.engine.run(() => exec(q.deleteHotSnapshotsBefore({ cutoff: hotCutoff })), { write: true });
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}
