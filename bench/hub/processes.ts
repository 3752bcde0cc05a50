/**
 * What bench:hub's bot part runs around a bot: a real `chorus hub` child process (SQLite or
 * PostgreSQL, policy limits off), a black hole on its port (a TCP server that accepts and never
 * answers), and a fresh PostgreSQL schema dropped afterwards.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface HubChild {
  url: string;
  port: number;
  /** SIGTERM and wait for the exit (SIGKILL after 10 s). Idempotent. */
  stop(): Promise<void>;
}

/** A `chorus hub` child on a free loopback port; `env` picks its database. */
export async function startHubChild(env: Record<string, string>): Promise<HubChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'hub', '--log-level', 'info'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      CHORUS_HUB_HOST: '127.0.0.1',
      CHORUS_HUB_PORT: '0',
      CHORUS_HUB_READ_PER_MINUTE: '0',
      CHORUS_HUB_CONTRIBUTIONS_PER_DAY: '0',
      CHORUS_HUB_ENROLL_PER_IP_PER_MINUTE: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`hub did not start:\n${output}`)), 30_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        const match = /community hub listening at (http:\/\/[^"\s]+)/.exec(output);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`hub exited (${code}) before starting:\n${output}`));
      });
    });
    // Keep draining its output so the pipe never fills.
    child.stdout?.removeAllListeners('data').resume();
    child.stderr?.removeAllListeners('data').resume();
    return { url, port: Number(new URL(url).port), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface BlackHole {
  url: string;
  /** Connections accepted so far. */
  accepted(): number;
  close(): Promise<void>;
}

/** A TCP server on `port` (retried while the port is still being released) that never answers. */
export async function blackHoleOn(port: number): Promise<BlackHole> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createTcpServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  for (let attempt = 0; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    accepted: () => accepted,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A free loopback port (listened on and released). */
export async function freePort(): Promise<number> {
  const server = createHttpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** null when PostgreSQL answers, else why not. */
export async function probePostgres(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Runs `run` with a URL whose search_path is a fresh schema, dropped afterwards. */
export async function withPostgresSchema<T>(url: string, run: (schemaUrl: string) => Promise<T>): Promise<T> {
  const schema = `chorus_bench_hub_bot_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA "${schema}"`);
    const separator = url.includes('?') ? '&' : '?';
    return await run(`${url}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`);
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await admin.end();
  }
}
