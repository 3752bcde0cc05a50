import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints a SQLite WAL into the database file from a worker thread, on its own connection.
 * SQLite's automatic checkpoint runs inside the COMMIT that crosses 1000 WAL pages: on the event
 * loop, with an fsync, 10-25 ms (measured by bench:store). PASSIVE never blocks the writer.
 *
 * When the WAL file has grown past `walMaxBytes` (a burst), a TRUNCATE checkpoint shrinks it to
 * zero once every frame is in the database. It is tried without waiting (busy_timeout 0): if a
 * writer or a reader is in the way it gives up until the next tick, so the writer on the event
 * loop is delayed at most by the truncation itself, never by a wait.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const walSize = () => { try { return statSync(workerData.path + '-wal').size; } catch (error) { return 0; } };
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
    try {
      db.pragma('wal_checkpoint(PASSIVE)');
      if (walSize() > workerData.walMaxBytes) {
        db.pragma('busy_timeout = 0');
        try { db.pragma('wal_checkpoint(TRUNCATE)'); } finally { db.pragma('busy_timeout = 5000'); }
      }
    } catch (error) { /* busy, or a hiccup: the next tick tries again */ }
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
  constructor(path: string, intervalMs: number, walMaxBytes: number, onFailure: () => void) {
    let failed = false;
    const fail = () => {
      if (failed) return;
      failed = true;
      onFailure();
    };
    this.#worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { path, driver: createRequire(import.meta.url).resolve('better-sqlite3'), intervalMs, walMaxBytes },
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
