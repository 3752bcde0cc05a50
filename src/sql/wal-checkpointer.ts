import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints a SQLite WAL into the database file from a worker thread, on its own connection.
 * SQLite's automatic checkpoint runs inside the COMMIT that crosses 1000 WAL pages: on the event
 * loop, with an fsync, 10-25 ms (measured by bench:store). PASSIVE never blocks the writer.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(function run() {
  let db;
  try {
    const Database = require(workerData.driver);
    db = new Database(workerData.path);
    db.pragma('busy_timeout = 5000');
  } catch (error) {
    parentPort.postMessage({ failed: String(error) });
    parentPort.close();
    return;
  }
  const timer = setInterval(() => {
    try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { /* the next tick tries again */ }
  }, workerData.intervalMs);
  parentPort.once('message', () => {
    clearInterval(timer);
    try { db.close(); } catch (error) { /* closing anyway */ }
    parentPort.close();
  });
})();
`;

const STOP_GRACE_MS = 2000;

export class WalCheckpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;
  #alive = true;

  /** `onFailure` runs once if the worker cannot work (the caller then checkpoints itself). */
  constructor(path: string, intervalMs: number, onFailure: () => void) {
    let failed = false;
    const fail = () => {
      if (failed) return;
      failed = true;
      onFailure();
    };
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, driver: createRequire(import.meta.url).resolve('better-sqlite3'), intervalMs },
    });
    this.#exited = new Promise((resolve) =>
      this.#worker.once('exit', () => {
        this.#alive = false;
        resolve();
      }),
    );
    this.#worker.on('message', (message: unknown) => {
      if (typeof message === 'object' && message !== null && 'failed' in message) fail();
    });
    // A worker error must never become an uncaught exception of the process.
    this.#worker.on('error', fail);
    this.#worker.unref();
  }

  /** Stops the worker (closing its connection); never waits more than a couple of seconds. */
  async stop(): Promise<void> {
    if (!this.#alive) return;
    this.#worker.ref();
    this.#worker.postMessage('stop');
    const grace = new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), STOP_GRACE_MS).unref());
    if ((await Promise.race([this.#exited, grace])) === 'late') await this.#worker.terminate();
  }
}
