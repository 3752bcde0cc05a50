/**
 * The hub's repository: every piece of shared state (tokens, usage and rate counters, corpus, hot
 * snapshots, heartbeats) lives in the database, so any number of hub processes on one PostgreSQL
 * serve the same data. Each operation is one unit of work (src/sql/program.ts) run by the engines
 * it shares with the bot store; writes are one transaction each.
 */
import { readFirst, readRows, type SqlEngine } from '../sql/engine.ts';
import { exec, first, rows, type Program } from '../sql/program.ts';
import { CONTEXT_ANSWERS_MAX, HOT } from './limits.ts';
import { parseMessages } from './merge.ts';
import { hubQueries, type HeartbeatRow, type HubQueries } from './queries.ts';
import type { HubDatabase } from './schema.ts';
import { contextOf, insertContext, policyOf, replaceHotSnapshot, upsertAnswer } from './hub-programs.ts';
import type {
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

  /** Issue (or rotate) the deployment's token; returns the policy it now has. */
  async enroll(input: {
    deploymentId: string;
    tokenHash: string;
    policy: Policy;
    now: number;
    expiresAt: number | null;
  }): Promise<Policy> {
    const q = this.#q;
    const row = await this.engine.run(
      () =>
        first(
          q.enroll({
            deploymentId: input.deploymentId,
            tokenHash: input.tokenHash,
            read: input.policy.read ? 1 : 0,
            contribute: input.policy.contribute ? 1 : 0,
            readPerMinute: input.policy.readPerMinute,
            contributionsPerDay: input.policy.contributionsPerDay,
            now: input.now,
            expiresAt: input.expiresAt,
          }),
        ),
      { write: true },
    );
    if (!row) throw new Error('enrollment wrote no row');
    return policyOf(row);
  }

  async deploymentByToken(tokenHash: string): Promise<Deployment | null> {
    const q = this.#q;
    const row = await readFirst(this.engine, q.deploymentByTokenHash({ tokenHash }));
    if (!row) return null;
    return { deploymentId: row.deployment_id, policy: policyOf(row), expiresAt: row.expires_at };
  }

  /**
   * A context read: the lookup, then one statement counting it (and a hit) in the deployment's
   * read window. Over `limit` (0 = none) the lookup is discarded and only the window counts it.
   */
  readContext(input: {
    deploymentId: string;
    hash: string;
    now: number;
    window: number;
    limit: number;
  }): Promise<{ limited: true } | { limited: false; context: StoredContext | null }> {
    const q = this.#q;
    return this.engine.run(function* () {
      const found = yield* rows(q.contextWithAnswers({ hash: input.hash, max: CONTEXT_ANSWERS_MAX }));
      const counted = yield* first(
        q.countRead({
          deploymentId: input.deploymentId,
          now: input.now,
          window: input.window,
          limit: input.limit,
          hit: found.length > 0 ? 1 : 0,
        }),
      );
      if (input.limit > 0 && (counted?.count ?? 0) > input.limit) return { limited: true as const };
      return { limited: false as const, context: contextOf(found) };
    });
  }

  /**
   * One contribution in one transaction: counted in the deployment's contribution window (over
   * `limit` nothing is written), then merged into the corpus.
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
        if (input.limit > 0 && (counted?.count ?? 0) > input.limit) return { limited: true };
        const contribution = input.contribution;
        if (contribution.op === 'upsert_answer') yield* upsertAnswer(q, contribution);
        else yield* insertContext(q, contribution);
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

  /** Fleet hot words: uploaded scores summed over snapshots newer than `cutoff`. */
  async fleetHot(cutoff: number, limit: number): Promise<HotCandidate[]> {
    const q = this.#q;
    const found = await readRows(this.engine, q.fleetHot({ cutoff, limit }));
    return found.map((row) => ({ keywords: row.keywords, score: Number(row.score), answers: [] }));
  }

  /**
   * Pool (`cutoff` null: all answers, ranked by the kept count sum) or recent (answers newer than
   * `cutoff`) hot words, each with its top answers.
   */
  corpusHot(cutoff: number | null, limit: number): Promise<HotCandidate[]> {
    const q = this.#q;
    return this.engine.run(function* () {
      const contexts = yield* rows(cutoff === null ? q.poolHot({ limit }) : q.recentHot({ cutoff, limit }));
      if (contexts.length === 0) return [];
      const answers = yield* rows(
        q.hotAnswers({
          ids: q.listParam(contexts.map((row) => Number(row.id))),
          cutoff: cutoff ?? 0,
          per: HOT.answerCandidatesPerItem,
        }),
      );
      const byContext = new Map<number, HotCandidate['answers']>();
      for (const answer of answers) {
        const list = byContext.get(Number(answer.context_id)) ?? [];
        list.push({ keywords: answer.keywords, count: Number(answer.count), messages: parseMessages(answer.messages) });
        byContext.set(Number(answer.context_id), list);
      }
      return contexts.map((row) => ({
        keywords: row.keywords,
        score: Number(row.score),
        answers: byContext.get(Number(row.id)) ?? [],
      }));
    });
  }

  /** Counts one request of `key` in its window; returns the count so far in that window. */
  async countAddress(key: string, window: number): Promise<number> {
    const q = this.#q;
    const row = await this.engine.run(() => first(q.countAddress({ key, window })), { write: true });
    return row?.count ?? 0;
  }

  /** Deletes address windows that ended before `addressCutoff` and hot rows older than `hotCutoff`. */
  async housekeeping(addressCutoff: number, hotCutoff: number): Promise<void> {
    const q = this.#q;
    await this.engine.run(
      function* () {
        yield* exec(q.deleteAddressWindowsBefore({ cutoff: addressCutoff }));
        yield* exec(q.deleteHotSnapshotsBefore({ cutoff: hotCutoff }));
      },
      { write: true },
    );
  }

  close(): Promise<void> {
    return this.engine.close();
  }
}
