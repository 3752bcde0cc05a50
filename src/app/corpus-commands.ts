/**
 * `chorus corpus export|import`: the portable corpus file from the command line, on the
 * configured database (SQLite in the data folder or PostgreSQL). On a terminal a progress bar
 * shows the rate and the time left; otherwise only the final report is printed (JSON).
 */
import { resolve } from 'node:path';
import cliProgress from 'cli-progress';
import type { ConfigSnapshot } from '../config/index.ts';
import {
  CorpusFileError,
  exportCorpus,
  importCorpus,
  importLearningChat,
  importPallasMongo,
  importPallasPg,
} from '../ops/corpus-file/index.ts';
import { importQqExport } from '../ops/corpus-file/qq-export.ts';
import { KeywordExtractor } from '../repeater/keywords.ts';
import { openStore, type LocalStore } from '../store/open-store.ts';
import { readVersion } from './version.ts';

export interface ExportCommand {
  out?: string;
  group?: number[];
  anonymise?: boolean;
}

export interface ImportCommand {
  dryRun?: boolean;
  /** Where the sources come from: a Chorus corpus file (default) or the origin's stores. */
  from?: 'chorus' | 'pallas-pg' | 'pallas-mongo' | 'learning-chat' | 'qq-export';
  /** qq-export: the group the messages are learned in. */
  group?: number;
}

async function withStore<T>(snapshot: ConfigSnapshot, work: (store: LocalStore) => Promise<T>): Promise<T> {
  const store = await openStore({
    databaseUrl: snapshot.database.engine === 'postgres' ? snapshot.database.url : '',
    dataDir: snapshot.dataDir,
    poolMax: 4,
    reply: snapshot.performance,
  });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** A progress bar on a terminal (stderr), nothing otherwise. */
function progressBar(label: string): { update: (done: number, total: number) => void; stop: () => void } {
  if (!process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${label} [{bar}] {percentage}% | {value}/{total} contexts | {rate}/s | ETA {eta_formatted}`,
      etaBuffer: 50,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = performance.now();
  let begun = false;
  return {
    update(done, total) {
      const rate = Math.round(done / Math.max(0.001, (performance.now() - started) / 1000));
      if (!begun) {
        bar.start(total, done, { rate });
        begun = true;
      } else {
        bar.setTotal(total);
        bar.update(done, { rate });
      }
    },
    stop: () => bar.stop(),
  };
}

export async function exportCommand(snapshot: ConfigSnapshot, options: ExportCommand): Promise<string> {
  const nowSec = Math.floor(Date.now() / 1000);
  const out = resolve(options.out ?? `chorus-corpus-${new Date(nowSec * 1000).toISOString().slice(0, 10)}.jsonl.gz`);
  const bar = progressBar('export');
  try {
    const report = await withStore(snapshot, (store) =>
      exportCorpus(store.corpus, out, {
        ...(options.group ? { groups: options.group } : {}),
        anonymise: options.anonymise === true,
        generator: `chorus ${readVersion()}`,
        nowSec,
        onProgress: bar.update,
      }),
    );
    return JSON.stringify(report);
  } finally {
    bar.stop();
  }
}

export async function importCommand(
  snapshot: ConfigSnapshot,
  sources: readonly string[],
  options: ImportCommand,
): Promise<string> {
  const from = options.from ?? 'chorus';
  if (from === 'qq-export') return qqExportCommand(snapshot, sources, options);
  if (from !== 'pallas-mongo' && sources.length !== 1) {
    throw new CorpusFileError(
      `${from === 'chorus' ? 'a corpus file' : 'one PostgreSQL URL'} is expected, not ${sources.length}`,
    );
  }
  const bar = progressBar(options.dryRun === true ? 'dry run' : 'import');
  const common = { dryRun: options.dryRun === true, onProgress: bar.update };
  try {
    const report = await withStore(snapshot, (store) => {
      if (from === 'pallas-pg') return importPallasPg(store.corpus, store.blacklists, sources[0] ?? '', common);
      if (from === 'learning-chat')
        return importLearningChat(store.corpus, store.blacklists, resolve(sources[0] ?? ''), common);
      if (from === 'pallas-mongo')
        return importPallasMongo(
          store.corpus,
          store.blacklists,
          sources.map((file) => resolve(file)),
          common,
        );
      return importCorpus(store.corpus, resolve(sources[0] ?? ''), common);
    });
    const { header, ...figures } = report;
    return JSON.stringify({ ...figures, source: header.generator });
  } finally {
    bar.stop();
  }
}

async function qqExportCommand(
  snapshot: ConfigSnapshot,
  sources: readonly string[],
  options: ImportCommand,
): Promise<string> {
  if (options.group === undefined)
    throw new CorpusFileError('--from qq-export needs --group <id>: the group to learn in');
  const keywords = new KeywordExtractor();
  const guard = { enabled: snapshot.guard.enabled, phrases: snapshot.guard.phrases, exempt: snapshot.guard.exempt };
  const reports = await withStore(snapshot, async (store) => {
    const done = [];
    for (const file of sources) {
      done.push(
        await importQqExport(store.corpus, resolve(file), {
          groupId: options.group ?? 0,
          keywords,
          guard,
          dryRun: options.dryRun === true,
        }),
      );
    }
    return done;
  });
  return JSON.stringify(reports.length === 1 ? reports[0] : reports);
}
