/**
 * The processes of a fleet run (bench:repeater --processes N, bench:capacity): N real
 * `chorus serve` children started with environment configuration, on one scratch PostgreSQL
 * schema or (one child) SQLite in its own project folder, each with two scripted OneBot accounts
 * of its own over real WebSockets. The groups are the same in every process, as when several
 * instances serve the same groups.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OneBotPeer } from '../../test/fixtures/onebot-peer.ts';
import { freePort } from '../../test/support/chorus-process.ts';
import { MAIN, startChild, type Child } from '../lib/child.ts';
import { scrape, type Scrape } from '../lib/prom.ts';

/** Extra Node.js flags for the children (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), for profiling a run. */
const childNodeArgs = (): string[] => (process.env.CHORUS_BENCH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);

export const FLEET_TOKEN = 'chorus-bench-fleet-token-not-secret';
export const GROUPS = Array.from({ length: 20 }, (_, index) => 800_001 + index);
/** Per process: account A in the first twelve groups, B in the last twelve (four have both). */
export const ACCOUNT_GROUPS = [new Set(GROUPS.slice(0, 12)), new Set(GROUPS.slice(8))];

/** Log lines by level, counted from a child's JSON output. */
export class LogLevels {
  errors = 0;
  warnings = 0;
  readonly messages = new Map<string, number>();
  #partial = '';

  add(text: string): void {
    const lines = (this.#partial + text).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) {
      const level = Number(/"level":(\d+)/.exec(line)?.[1] ?? 0);
      if (level < 40) continue;
      if (level >= 50) this.errors++;
      else this.warnings++;
      const message = /"msg":"([^"]*)"/.exec(line)?.[1] ?? '?';
      this.messages.set(message, (this.messages.get(message) ?? 0) + 1);
    }
  }
}

export interface FleetMember {
  readonly index: number;
  readonly child: Child;
  /** The console's URL, e.g. http://127.0.0.1:1234/chorus/ */
  readonly consoleUrl: string;
  readonly peers: OneBotPeer[];
  readonly logs: LogLevels;
  scrape(): Promise<Scrape>;
}

export interface Fleet {
  readonly members: FleetMember[];
  stop(): Promise<void>;
}

/** Starts the children one after the other (the first one migrates the database) and connects the peers. */
export async function startFleet(options: {
  processes: number;
  /** A scratch schema's URL, or null for SQLite (one process). */
  databaseUrl: string | null;
  log: (line: string) => void;
}): Promise<Fleet> {
  const members: FleetMember[] = [];
  const dirs: string[] = [];
  const stop = async () => {
    for (const member of members) {
      for (const peer of member.peers) await peer.close().catch(() => undefined);
    }
    await Promise.all(members.map((member) => member.child.stop()));
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < options.processes; index++) {
      const dir = await mkdtemp(join(tmpdir(), 'chorus-bench-fleet-'));
      dirs.push(dir);
      const logs = new LogLevels();
      const started = performance.now();
      const child = await startChild(
        [...childNodeArgs(), '--import', 'tsx', MAIN, 'serve', '--no-supervise', '--project-dir', dir],
        {
          CHORUS_HOST: '127.0.0.1',
          CHORUS_PORT: String(await freePort()),
          CHORUS_CONSOLE_TOKEN: FLEET_TOKEN,
          CHORUS_LOG_FORMAT: 'json',
          CHORUS_LOG_LEVEL: 'info',
          CHORUS_REPEATER_COOLDOWN_SEC: '0',
          CHORUS_REPEATER_REPLY_DELAY_SEC: '0-0',
          CHORUS_REPEATER_SPLIT_DELAY_SEC: '0-0',
          // One process runs the singleton jobs, as in a real deployment.
          CHORUS_SHARD_ROLE: index === 0 ? 'primary' : 'worker',
          ...(options.databaseUrl ? { CHORUS_DATABASE_URL: options.databaseUrl } : {}),
        },
        /console listening at (http:\/\/[^"\s]+)/,
        (text) => logs.add(text),
      );
      const consoleUrl = child.url;
      const url = `ws://127.0.0.1:${child.port}/onebot/v11/ws`;
      const peers: OneBotPeer[] = [];
      const member: FleetMember = {
        index,
        child,
        consoleUrl,
        peers,
        logs,
        scrape: () => scrape(consoleUrl, FLEET_TOKEN),
      };
      members.push(member);
      for (const [account] of ACCOUNT_GROUPS.entries()) {
        peers.push(
          await OneBotPeer.connect({
            url,
            selfId: 20_001 + index * ACCOUNT_GROUPS.length + account,
            firstMessageId: 1_000_000_000 + (index * ACCOUNT_GROUPS.length + account) * 100_000_000,
          }),
        );
      }
      options.log(
        `process ${index + 1} (pid ${child.process.pid}) up in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    return { members, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
