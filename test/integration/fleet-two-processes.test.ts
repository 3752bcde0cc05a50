/**
 * Two real `chorus serve` processes on one PostgreSQL schema act as one fleet (docs/rules.md#fleet-claims,
 * #fleet-feed). Each process has its own bot account (a scripted OneBot peer); both accounts are in
 * the same groups and receive the same conversation (same group, sender, time and text; each
 * account with its own message ids, as QQ does). What the fleet learned equals what one process
 * learned from the same conversation on a schema of its own, and no message is answered by both
 * accounts; a phrase taught through either account is answered at once by whichever process
 * takes the question, though each caches what it read. Then a group control saved in one process's console applies in the other in under a
 * second (the NOTIFY of the change feed).
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { it, type TestContext } from 'node:test';
import pg from 'pg';
import { OneBotPeer } from '../fixtures/onebot-peer.ts';
import { freePort, runChorus } from '../support/chorus-process.ts';
import { consoleApi, EAGER_REPEATER, until, type Api } from '../support/console-conversation.ts';
import { freshSchemaName, PG_URL, requirePostgres } from '../support/engines.ts';

const TOKEN = 'fleet-two-processes-token';
const GROUPS = [8101, 8102];
/** The group whose control is switched in one process and watched in the other. */
const CONTROL_GROUP = 8103;
/** The group where one process learns and the other answers. */
const LEARN_GROUP = 8104;
const PAIRS: Record<number, [string, string]> = {
  8101: ['周末去爬山怎么样', '好主意我带水'],
  8102: ['晚上吃火锅好不好', '火锅必须安排上'],
};

interface Line {
  groupId: number;
  userId: number;
  text: string;
  time: number;
}

/** Each group: a pair taught four times, then its trigger asked three times between fillers. */
function script(firstSecond: number): Line[] {
  const lines: Line[] = [];
  let second = firstSecond;
  const say = (groupId: number, userId: number, text: string) => lines.push({ groupId, userId, text, time: ++second });
  for (const groupId of GROUPS) {
    const [trigger, answer] = PAIRS[groupId] as [string, string];
    for (let round = 0; round < 4; round++) {
      say(groupId, 2, trigger);
      say(groupId, 3, answer);
      say(groupId, 4, `${trigger}之后随便聊聊第${round}次`);
    }
    for (let ask = 0; ask < 3; ask++) {
      say(groupId, 9, trigger);
      say(groupId, 5, `问完以后再说点别的第${ask}回`);
    }
  }
  return lines;
}

/** Like `until`, with a short pause between looks (a line's decision takes milliseconds). */
async function poll<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

interface Node {
  name: string;
  api: Api;
  peer: OneBotPeer;
  base: string;
}

interface Health {
  onebot: { connected_bots: number };
  corpus: { learning_queue: number };
  fleet_claims?: { won: number; lost: number; failed: number; slow: number; active: boolean; fleet_accounts: number };
}

/** `/health` (public, not enveloped). */
async function health(node: Node): Promise<Health> {
  return (await (await fetch(`${node.base}/api/health`)).json()) as Health;
}

async function decisionsTotal(node: Node, groupId: number): Promise<number> {
  const { data } = await node.api.call<{ group_id: number; total: number }[]>('GET', '/repeater/groups');
  return data.find((group) => group.group_id === groupId)?.total ?? 0;
}

interface DecisionView {
  message_id: number;
  outcome: string;
  reason: string;
}

async function decisionOf(node: Node, groupId: number, messageId: number): Promise<DecisionView | undefined> {
  const { data } = await node.api.call<{ decisions: DecisionView[] }>(
    'GET',
    `/repeater/decisions?group_id=${groupId}&limit=100&scope=process`,
  );
  return data.decisions.find((decision) => decision.message_id === messageId);
}

/**
 * Delivers the script to every node (the same line to each, with the node's own message id), one
 * line at a time: the next line goes once every node has decided the last one, as people chat.
 * The order of delivery alternates so that each process is sometimes first to claim. What one
 * account sends in a group reaches the other accounts as a group message from it, as QQ shows it
 * (docs/rules.md#fleet-accounts): those echoes are returned apart. Returns, per line, the
 * decisions of the nodes. `beforeLine` may hold a line back (until what it asks about is learned).
 */
async function deliver(
  nodes: Node[],
  lines: Line[],
  beforeLine: (line: Line) => Promise<void> = async () => undefined,
): Promise<{ decided: DecisionView[][]; echoes: DecisionView[] }> {
  const counts = new Map<string, number>();
  const deliverTo = async (node: Node, groupId: number, messageId: number, what: string) => {
    const key = `${node.name}:${groupId}`;
    const expected = (counts.get(key) ?? 0) + 1;
    counts.set(key, expected);
    await poll(`${node.name} to decide ${what}`, async () =>
      (await decisionsTotal(node, groupId)) >= expected ? true : undefined,
    );
    const decision = await decisionOf(node, groupId, messageId);
    assert.ok(decision, `${node.name} kept its decision on ${what}`);
    return decision;
  };
  const decided: DecisionView[][] = [];
  const echoes: DecisionView[] = [];
  const echoed = new Map<Node, number>();
  for (const [index, line] of lines.entries()) {
    await beforeLine(line);
    const order = index % 2 === 0 ? nodes : [...nodes].reverse();
    const ids = new Map(order.map((node) => [node, node.peer.groupMessage(line)]));
    const row = await Promise.all(
      nodes.map((node) => deliverTo(node, line.groupId, ids.get(node) as number, `line ${index}`)),
    );
    decided.push(row);
    for (const [at, decision] of row.entries()) {
      const from = nodes[at] as Node;
      if (decision.outcome !== 'replied' || nodes.length < 2) continue;
      const reply = await poll(
        `${from.name}'s reply to line ${index}`,
        async () => from.peer.sent[echoed.get(from) ?? 0],
      );
      echoed.set(from, (echoed.get(from) ?? 0) + 1);
      for (const other of nodes.filter((node) => node !== from)) {
        const echo = { groupId: reply.groupId, userId: from.peer.selfId, text: reply.message, time: line.time };
        echoes.push(await deliverTo(other, reply.groupId, other.peer.groupMessage(echo), `the echo of line ${index}`));
      }
    }
  }
  return { decided, echoes };
}

/** What the schema learned and logged, without ids, account ids or message ids (which differ per account). */
async function learned(admin: pg.Client, schema: string) {
  const rows = async (sql: string) => (await admin.query(sql.replaceAll('$S', `"${schema}"`))).rows as unknown[];
  return {
    contexts: await rows(
      'SELECT keywords, trigger_count, time, answer_count_sum FROM $S.context ORDER BY keywords_hash',
    ),
    answers: await rows(
      `SELECT c.keywords AS context, a.keywords, a.group_id, a.count, a.time
         FROM $S.context_answer a JOIN $S.context c ON c.id = a.context_id
        ORDER BY c.keywords_hash, a.keywords_hash, a.group_id`,
    ),
    answerMessages: await rows(
      `SELECT a.keywords_hash, a.group_id, m.message
         FROM $S.context_answer_message m JOIN $S.context_answer a ON a.id = m.answer_id
        ORDER BY a.keywords_hash, a.group_id, m.message`,
    ),
    messages: await rows(
      'SELECT group_id, user_id, raw_message, keywords, time FROM $S.message ORDER BY time, group_id, user_id',
    ),
  };
}

type Learned = Awaited<ReturnType<typeof learned>>;

/**
 * Holds a group's first question back until its taught pair is written four times: learning is
 * asynchronous (a batch, perhaps waiting out pool pressure on a loaded machine), and the question
 * is meant to find the pair learned, as it would a few seconds later in a real group.
 */
function untilTaught(admin: pg.Client, schema: string): (line: Line) => Promise<void> {
  const asked = new Set<number>();
  return async (line) => {
    const [trigger, answer] = PAIRS[line.groupId] ?? [];
    if (line.text !== trigger || line.userId !== 9 || asked.has(line.groupId)) return;
    asked.add(line.groupId);
    await poll(`the pair of group ${line.groupId} to be learned`, async () => {
      const found = await admin.query(
        `SELECT 1 FROM "${schema}".context_answer a JOIN "${schema}".context_answer_message m ON m.answer_id = a.id
          WHERE m.message = $1 AND a.count >= 4`,
        [answer],
      );
      return found.rowCount ? true : undefined;
    });
  };
}

const sizes = (state: Learned) =>
  Object.fromEntries(Object.entries(state).map(([name, list]) => [name, list.length])) as Record<keyof Learned, number>;

/** Waits until every line is logged, the learning queues are empty and the tables hold still. */
async function settled(admin: pg.Client, schema: string, nodes: Node[], logged: number): Promise<Learned> {
  let last = '';
  return until(
    `the learning in ${schema} to settle`,
    async () => {
      const queues = await Promise.all(nodes.map(health));
      const state = await learned(admin, schema);
      const text = JSON.stringify(state);
      const still = text === last;
      last = text;
      const idle = queues.every((health) => health.corpus.learning_queue === 0);
      if (state.messages.length >= logged && idle && still) return state;
      // The next look at least a few hundred ms later: the tables must hold still across it.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return undefined;
    },
    20_000,
  );
}

it(
  'two chorus serve processes on one PostgreSQL learn a shared conversation once and apply each other’s controls',
  { timeout: 120_000 },
  async (t: TestContext) => {
    if (!requirePostgres(t)) return;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    const fleetSchema = freshSchemaName();
    const soloSchema = freshSchemaName();
    // Undone last first: the processes stop before their schemas are dropped.
    const cleanups: (() => Promise<unknown>)[] = [];
    t.after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    });
    cleanups.push(async () => {
      for (const schema of [fleetSchema, soloSchema]) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    });
    for (const schema of [fleetSchema, soloSchema]) await admin.query(`CREATE SCHEMA "${schema}"`);
    const root = await mkdtemp(join(tmpdir(), 'chorus-fleet-'));
    cleanups.push(() => rm(root, { recursive: true, force: true }));

    const serve = async (name: string, schema: string, selfId: number, env: Record<string, string> = {}) => {
      const url = new URL(PG_URL);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const port = await freePort();
      const chorus = runChorus(['serve', '--project-dir', join(root, name)], {
        CHORUS_PORT: String(port),
        CHORUS_CONSOLE_TOKEN: TOKEN,
        CHORUS_DATABASE_URL: url.toString(),
        // The default, auto: claims on PostgreSQL once another process has accounts.
        ...EAGER_REPEATER,
        // Cached reply snapshots live a minute: a phrase another process learned must still be
        // answered at once, because the learn drops the copies in every process (docs/rules.md#fleet-feed).
        CHORUS_CORPUS_REPLY_SNAPSHOT_SEC: '60',
        ...env,
      });
      cleanups.push(async () => {
        chorus.child.kill('SIGTERM');
        await chorus.exited;
      });
      await chorus.waitFor(/console listening at/, 40_000);
      const peer = await OneBotPeer.connect({ url: `ws://127.0.0.1:${port}/onebot/v11/ws`, selfId });
      cleanups.push(() => peer.close());
      const base = `http://127.0.0.1:${port}/chorus`;
      const node: Node = { name, api: consoleApi(base, TOKEN), peer, base };
      await until(`${name}'s account online`, async () =>
        (await health(node)).onebot.connected_bots === 1 ? true : undefined,
      );
      return node;
    };
    // The fleet's primary and worker, and a process alone on a schema of its own, all started at once.
    const [primary, worker, solo] = await Promise.all([
      serve('primary', fleetSchema, 10001),
      serve('worker', fleetSchema, 10002, { CHORUS_SHARD_ROLE: 'worker' }),
      serve('solo', soloSchema, 10003),
    ]);
    const lines = script(Math.floor(Date.now() / 1000) - 50_000);
    // Each fleet process knows the other's account, so it claims; the process alone does not.
    for (const node of [primary, worker])
      await poll(`${node.name} to know its fleet mate's account`, async () => {
        const claims = (await health(node)).fleet_claims;
        return claims?.active && claims.fleet_accounts === 1 ? true : undefined;
      });
    assert.deepEqual(
      [(await health(solo)).fleet_claims?.active, (await health(solo)).fleet_claims?.fleet_accounts],
      [false, 0],
      'alone, a claim would be a round trip for nothing',
    );

    // One process alone.
    const { decided: soloDecisions } = await deliver([solo], lines, untilTaught(admin, soloSchema));
    const soloLearned = await settled(admin, soloSchema, [solo], lines.length);
    const soloClaims = (await health(solo)).fleet_claims;
    assert.deepEqual([soloClaims?.won, soloClaims?.lost], [0, 0], 'the process alone claimed nothing');

    // The fleet: both accounts get every line.
    const { decided: fleetDecisions, echoes } = await deliver(
      [primary, worker],
      lines,
      untilTaught(admin, fleetSchema),
    );
    const fleetLearned = await settled(admin, fleetSchema, [primary, worker], lines.length);

    // A claim slower than its wait (250 ms) is handled as won, and may be handled twice (docs/rules.md#fleet-claims).
    const claims = await Promise.all([primary, worker].map(async (node) => (await health(node)).fleet_claims));
    const counters = `claims ${JSON.stringify(claims)}`;
    assert.ok(soloLearned.answers.length > 0 && soloLearned.messages.length === lines.length, 'the baseline learned');
    assert.deepEqual(sizes(fleetLearned), sizes(soloLearned), `as many rows learned as by one process; ${counters}`);
    assert.deepEqual(fleetLearned, soloLearned, `the fleet learned exactly what one process learned; ${counters}`);

    // One account's reply, seen by the other account, is the bot's own message there too.
    assert.ok(echoes.length > 0, 'the fleet replied, and the other account saw it');
    assert.deepEqual(
      echoes.map((decision) => decision.reason),
      echoes.map(() => 'self'),
    );
    // Every line was taken by exactly one process; the other one knew it was taken elsewhere.
    for (const [index, [first, second]] of fleetDecisions.entries()) {
      const elsewhere = [first, second].filter((decision) => decision?.reason === 'claimed-elsewhere').length;
      assert.equal(elsewhere, 1, `line ${index}: ${JSON.stringify([first, second])}`);
    }
    assert.ok(
      claims.every((mine) => mine !== undefined && mine.won > 0),
      `both processes took a share: ${JSON.stringify(claims)}`,
    );

    // At most one reply per message in each group, across both accounts; and the taught pairs were answered.
    for (const groupId of GROUPS) {
      const indexes = lines.flatMap((line, index) => (line.groupId === groupId ? [index] : []));
      const replied = indexes.map(
        (index) => (fleetDecisions[index] ?? []).filter((decision) => decision.outcome === 'replied').length,
      );
      assert.ok(
        replied.every((count) => count <= 1),
        `group ${groupId}: replies per line ${replied.join(',')}`,
      );
      const answers = replied.reduce((sum, count) => sum + count, 0);
      const sent = await until(`group ${groupId}'s replies at the peers`, async () => {
        const count = [primary, worker].reduce(
          (sum, node) => sum + node.peer.sent.filter((message) => message.groupId === groupId).length,
          0,
        );
        return count >= answers ? count : undefined;
      });
      assert.equal(sent, answers, `group ${groupId}: what both peers were sent`);
      const [, answer] = PAIRS[groupId] as [string, string];
      const fleetAnswers = [primary, worker].flatMap((node) =>
        node.peer.sent.filter((message) => message.groupId === groupId && message.message === answer),
      );
      assert.ok(fleetAnswers.length >= 1, `group ${groupId}: the fleet answered the taught trigger`);
    }
    const soloReplies = soloDecisions.flat().filter((decision) => decision.outcome === 'replied').length;
    t.diagnostic(
      `learned ${JSON.stringify(sizes(fleetLearned))}; ${counters}; ` +
        `replies: fleet ${fleetDecisions.flat().filter((decision) => decision.outcome === 'replied').length}, one process ${soloReplies}`,
    );

    // A group control saved in the worker's console applies in the primary within a second.
    let probe = 0;
    const probeReason = async (): Promise<string> => {
      probe++;
      const messageId = primary.peer.groupMessage({
        groupId: CONTROL_GROUP,
        userId: 6,
        text: `控制组里随便说一句第${probe}次`,
      });
      const decision = await poll('the primary to decide the probe', () =>
        decisionOf(primary, CONTROL_GROUP, messageId),
      );
      return decision.reason;
    };
    assert.notEqual(await probeReason(), 'reply-off', 'the group answers before the control');
    const started = performance.now();
    const saved = await worker.api.call<{ reply: boolean }>('PUT', `/group-configs/${CONTROL_GROUP}`, { reply: false });
    assert.equal(saved.status, 200, saved.detail);
    const savedAt = performance.now();
    await poll('the primary to see the group answer no more', async () =>
      (await probeReason()) === 'reply-off' ? true : undefined,
    );
    const appliedMs = performance.now() - started;
    t.diagnostic(
      `group control applied in the other process ${Math.round(appliedMs)} ms after the save was asked ` +
        `(${Math.round(performance.now() - savedAt)} ms after it was saved)`,
    );
    assert.ok(appliedMs < 1000, `applied in ${Math.round(appliedMs)} ms`);

    // A phrase learned by one process is answered at once by the other, which had read (and
    // cached) the trigger before: the learn batch's keys reach it through the feed.
    const [trigger, answer] = ['明天一起去钓鱼吧', '好的我带鱼竿'];
    const askWorker = async () => {
      const messageId = worker.peer.groupMessage({ groupId: LEARN_GROUP, userId: 9, text: trigger });
      return poll('the worker to decide the question', () => decisionOf(worker, LEARN_GROUP, messageId));
    };
    assert.equal((await askWorker()).outcome, 'skipped', 'nothing known yet');
    let second = Math.floor(Date.now() / 1000) - 40_000;
    for (let round = 0; round < 4; round++) {
      for (const [userId, text] of [
        [2, trigger],
        [3, answer],
        [4, `钓鱼的事随便聊聊第${round}次`],
      ] as const)
        primary.peer.groupMessage({ groupId: LEARN_GROUP, userId, text, time: ++second });
    }
    await poll('the primary to learn the phrase', async () => {
      const found = await admin.query(
        `SELECT a.count FROM "${fleetSchema}".context_answer a JOIN "${fleetSchema}".context c ON c.id = a.context_id
          WHERE c.keywords = (SELECT keywords FROM "${fleetSchema}".message WHERE raw_message = $1 LIMIT 1)
            AND a.count >= 4`,
        [trigger],
      );
      return found.rowCount ? true : undefined;
    });
    const learnedAt = performance.now();
    await poll(
      'the worker to answer what the primary learned',
      async () => ((await askWorker()).outcome === 'replied' ? true : undefined),
      3_000,
    );
    t.diagnostic(
      `a phrase learned in one process was answered by the other ${Math.round(performance.now() - learnedAt)} ms later`,
    );
  },
);
