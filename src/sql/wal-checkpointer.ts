import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Checkpoints a SQLite WAL into the database file from a worker thread, on its own connection.
 * SQLite's automatic checkpoint runs inside the COMMIT that crosses 1000 WAL pages: on the event
 * loop, with an fsync, 10-25 ms (measured by bench:store). PASSIVE never blocks the writer.
 *
 * It checkpoints only after a write (docs/rules.md#idle-quiet): the writer calls `written()`, which
 * raises a flag shared with the worker and, on the first write since the last checkpoint, posts one
 * message; the worker waits the interval, lowers the flag and checkpoints. Under steady writes that
 * is one checkpoint per interval, as a timer gave; while nothing is written the worker sleeps. It
 * checkpoints once at start, for what was written before it ran (migrations, another process).
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
  const state = new Int32Array(workerData.state);
  let timer;
  const checkpoint = () => {
    timer = undefined;
    // Lowered first: a write from now on asks for the next checkpoint.
    Atomics.store(state, 0, 0);
    try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { /* the next write asks again */ }
    Atomics.add(state, 1, 1);
  };
  parentPort.on('message', (message) => {
    if (message === 'checkpoint') {
      timer ??= setTimeout(checkpoint, workerData.intervalMs);
      return;
    }
    clearTimeout(timer);
    try { db.close(); } catch (error) { /* closing anyway */ }
    parentPort.close();
  });
  timer = setTimeout(checkpoint, workerData.intervalMs);
})();
`;

/** Slots of the shared state: the "written since the last checkpoint" flag, checkpoints done. */
const WRITTEN = 0;
const CHECKPOINTS = 1;

const STOP_GRACE_MS = 2000;

export class WalCheckpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<void>;
  readonly #state = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
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
      workerData: {
        path,
        driver: createRequire(import.meta.url).resolve('better-sqlite3'),
        intervalMs,
        state: this.#state.buffer,
      },
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

  /** A write committed: the WAL is checkpointed within the interval (a few atomics, no await). */
  written(): void {
    // The first write since the last checkpoint posts; the rest find the flag already up.
    if (this.#alive && Atomics.compareExchange(this.#state, WRITTEN, 0, 1) === 0)
      this.#worker.postMessage('checkpoint');
  }

  /** Checkpoints run since start (tests). */
  get checkpoints(): number {
    return Atomics.load(this.#state, CHECKPOINTS);
  }

  /** True while a checkpoint is asked for and not yet run (tests). */
  get pending(): boolean {
    return Atomics.load(this.#state, WRITTEN) === 1;
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
