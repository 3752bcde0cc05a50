/**
 * The portable corpus file on both engines: export then import into an empty store gives the same
 * corpus (every context, answer, count, message and ban), a second import changes nothing, a merge
 * keeps the larger count and unites messages, --anonymise leaves only group 0, and a damaged file
 * is refused naming the line.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it, type TestContext } from 'node:test';
import { promisify } from 'node:util';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createGzip, gunzipSync, gzipSync } from 'node:zlib';
import type { Context } from '../../src/domain/corpus.ts';
import { CorpusFileError, exportCorpus, importCorpus } from '../../src/ops/corpus-file/index.ts';
import { ImportStoppedError } from '../../src/ops/corpus-file/import.ts';
import { CORPUS_TEXT_LIMITS } from '../../src/common/limits.ts';
import { TransientLookupError } from '../../src/common/errors.ts';
import type { LocalStore } from '../../src/store/open-store.ts';
import { CHORUS_MAIN } from '../support/chorus-process.ts';
import { forEachEngine } from '../support/engines.ts';

const run = promisify(execFile);

async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-corpus-file-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** 300 contexts with several answers in three groups, images and faces as CQ codes, and bans. */
function sampleCorpus(): Context[] {
  const contexts: Context[] = [];
  for (let i = 0; i < 300; i++) {
    contexts.push({
      keywords: `话题${i} 关键`,
      time: 1_700_000_000 + i,
      triggerCount: 1 + (i % 7),
      clearTime: i % 3 === 0 ? 1_700_000_500 : 0,
      answers: [
        {
          keywords: `回答${i}`,
          groupId: 1001,
          count: 3 + (i % 5),
          time: 1_700_000_100 + i,
          messages: [`回答${i}`, `回答${i}！`],
        },
        { keywords: `图${i}`, groupId: 1002, count: 1, time: 1_700_000_200, messages: [`[CQ:image,file=${i}.jpg]`] },
        ...(i % 4 === 0
          ? [
              {
                keywords: `回答${i}`,
                groupId: 1003,
                count: 2,
                time: 1_700_000_300,
                messages: [`[CQ:face,id=${i % 200}]回答${i}`],
              },
            ]
          : []),
      ],
      bans: i % 10 === 0 ? [{ keywords: `图${i}`, groupId: 1002, reason: 'test', time: 1_700_000_400 }] : [],
    });
  }
  return contexts;
}

async function seed(store: LocalStore, contexts: Context[]): Promise<void> {
  for (const context of contexts) await store.corpus.insert(context);
}

/** The whole corpus in a comparable form: ids left out, lists in a stable order. */
async function dump(store: LocalStore): Promise<unknown[]> {
  const all: Context[] = [];
  for await (const page of store.corpus.iterateAllContexts()) all.push(...page);
  const byKey = (a: { keywords: string; groupId: number }, b: { keywords: string; groupId: number }) =>
    a.keywords.localeCompare(b.keywords) || a.groupId - b.groupId;
  return all
    .map((context) => ({ ...context, answers: [...context.answers].sort(byKey), bans: [...context.bans].sort(byKey) }))
    .sort((a, b) => a.keywords.localeCompare(b.keywords));
}

const options = { generator: 'chorus test', nowSec: 1_800_000_000 };

const HEADER = JSON.stringify({ format: 'chorus-corpus', version: 1, contexts: 2 });

function line(keywords: string, answers: { keywords: string; messages: string[] }[] = [], bans: string[] = []): string {
  return JSON.stringify({
    keywords,
    time: 1,
    trigger_count: 1,
    clear_time: 0,
    answers: answers.map((answer) => ({ ...answer, group_id: 7, count: 1, time: 1 })),
    bans: bans.map((keywords) => ({ keywords, group_id: 7, reason: 'r', time: 1 })),
  });
}

/** Resident memory now, and the peak since `resetPeak` (VmHWM, reset through clear_refs; else sampled). */
function residentMemory(): { now: () => number; resetPeak: () => void; peak: () => number } {
  const status = () => readFileSync('/proc/self/status', 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status())?.[1] ?? 0) * 1024;
  let sampled = 0;
  let sampler: NodeJS.Timeout | undefined;
  let resettable = true;
  return {
    now: () => process.memoryUsage().rss,
    resetPeak() {
      try {
        writeFileSync('/proc/self/clear_refs', '5');
      } catch {
        resettable = false;
      }
      sampled = process.memoryUsage().rss;
      clearInterval(sampler);
      sampler = setInterval(() => (sampled = Math.max(sampled, process.memoryUsage().rss)), 5);
    },
    peak() {
      clearInterval(sampler);
      return Math.max(sampled, resettable ? kib('VmHWM') : 0);
    },
  };
}

/** A gzip file of `header`, one line of `hugeBytes` bytes, and the `after` lines, written as a stream. */
async function fileWithHugeLine(path: string, hugeBytes: number, after: string[]): Promise<void> {
  const piece = Buffer.alloc(1024 * 1024, 'x'.charCodeAt(0));
  async function* parts(): AsyncGenerator<Buffer | string> {
    yield `${HEADER}\n${line('前面 一句', [{ keywords: '前面', messages: ['前面的回答'] }])}\n{"keywords":"`;
    for (let left = hugeBytes; left > 0; left -= piece.length)
      yield left >= piece.length ? piece : piece.subarray(0, left);
    yield `","time":1,"trigger_count":1,"clear_time":0}\n${after.join('\n')}\n`;
  }
  await pipeline(Readable.from(parts()), createGzip({ level: constants.Z_BEST_SPEED }), createWriteStream(path));
}

/** A hot-path lookup, asked again (for up to 10 s) while the engine sheds lookups under pressure. */
async function lookupOnceCalm<T>(lookup: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      return await lookup();
    } catch (error) {
      if (!(error instanceof TransientLookupError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

forEachEngine((engine) => {
  it('export then import into an empty store gives the same corpus; a second import changes nothing', async (t) => {
    const dir = await tempDir(t);
    const source = await engine.open(t);
    await seed(source, sampleCorpus());
    const file = join(dir, 'corpus.jsonl.gz');
    const exported = await exportCorpus(source.corpus, file, options);
    assert.equal(exported.contexts, 300);
    assert.equal(exported.bans, 30);

    const target = await engine.open(t);
    const first = await importCorpus(target.corpus, file);
    assert.deepEqual(
      [first.contexts_read, first.contexts_added, first.contexts_merged, first.bans_added],
      [300, 300, 0, 30],
    );
    assert.deepEqual(await dump(target), await dump(source));
    // Reply lookups see the imported corpus at once; a lookup the hot path sheds while the engine is
    // still busy with the import's writes (pressure, by design) is asked again.
    const found = await lookupOnceCalm(() => target.corpus.findByKeywordsForReply('话题7 关键'));
    assert.equal(found?.answers.find((answer) => answer.groupId === 1001)?.count, 5);

    const second = await importCorpus(target.corpus, file);
    assert.deepEqual([second.contexts_added, second.contexts_merged, second.contexts_unchanged], [0, 0, 300]);
    assert.deepEqual(await dump(target), await dump(source));
  });

  it('a context too large for one unit of work is written in parts with the same result', async (t) => {
    const dir = await tempDir(t);
    const source = await engine.open(t);
    const hot: Context = {
      keywords: '热门 话题',
      time: 500,
      triggerCount: 4000,
      clearTime: 0,
      answers: Array.from({ length: 30 }, (_, i) => ({
        keywords: `热回答${i}`,
        groupId: 1000 + (i % 3),
        count: 10 + i,
        time: 400 + i,
        messages: Array.from({ length: 100 }, (_, m) => `热回答${i}的第${m}种说法`),
      })),
      bans: [{ keywords: '热回答3', groupId: 1000, reason: 'r', time: 450 }],
    };
    await seed(source, [hot]);
    const file = join(dir, 'hot.jsonl.gz');
    await exportCorpus(source.corpus, file, options);
    const target = await engine.open(t);
    const report = await importCorpus(target.corpus, file);
    assert.deepEqual(
      [report.contexts_read, report.contexts_added, report.answers_added, report.bans_added],
      [1, 1, 30, 1],
    );
    assert.equal(report.messages_added, 3000);
    assert.deepEqual(await dump(target), await dump(source));
    const again = await importCorpus(target.corpus, file);
    assert.deepEqual([again.contexts_unchanged, again.answers_added, again.messages_added], [1, 0, 0]);
  });

  it('a merge keeps the larger count and the later time, unites messages and adds new answers and bans', async (t) => {
    const dir = await tempDir(t);
    const source = await engine.open(t);
    await seed(source, [
      {
        keywords: '早上 好',
        time: 200,
        triggerCount: 9,
        clearTime: 0,
        answers: [
          { keywords: '早', groupId: 1, count: 2, time: 150, messages: ['早', '早呀'] },
          { keywords: '新', groupId: 2, count: 1, time: 160, messages: ['新的'] },
        ],
        bans: [{ keywords: '坏', groupId: 1, reason: 'r', time: 170 }],
      },
    ]);
    const file = join(dir, 'merge.jsonl.gz');
    await exportCorpus(source.corpus, file, options);
    const target = await engine.open(t);
    await seed(target, [
      {
        keywords: '早上 好',
        time: 100,
        triggerCount: 3,
        clearTime: 0,
        answers: [{ keywords: '早', groupId: 1, count: 5, time: 100, messages: ['早'] }],
        bans: [],
      },
    ]);
    const report = await importCorpus(target.corpus, file);
    assert.deepEqual(
      [report.contexts_merged, report.answers_added, report.answers_updated, report.messages_added, report.bans_added],
      [1, 1, 1, 2, 1],
    );
    const merged = await target.corpus.findByKeywords('早上 好');
    assert.equal(merged?.triggerCount, 9);
    assert.equal(merged?.time, 200);
    const early = merged?.answers.find((answer) => answer.keywords === '早');
    assert.deepEqual([early?.count, early?.time, early?.messages], [5, 150, ['早', '早呀']]);
    assert.equal(merged?.bans.length, 1);
  });

  it('--group limits the export and --anonymise leaves no group id but 0', async (t) => {
    const dir = await tempDir(t);
    const source = await engine.open(t);
    await seed(source, sampleCorpus());
    const only = join(dir, 'group.jsonl.gz');
    const limited = await exportCorpus(source.corpus, only, { ...options, groups: [1003] });
    assert.equal(limited.contexts, 75);
    const anonymous = join(dir, 'anon.jsonl.gz');
    await exportCorpus(source.corpus, anonymous, { ...options, anonymise: true });
    const lines = gunzipSync(await readFile(anonymous))
      .toString('utf8')
      .trim()
      .split('\n');
    assert.equal((JSON.parse(lines[0] ?? '{}') as { anonymised: boolean }).anonymised, true);
    const groups = new Set<number>();
    for (const line of lines.slice(1)) {
      const context = JSON.parse(line) as { answers: { group_id: number }[]; bans: { group_id: number }[] };
      for (const item of [...context.answers, ...context.bans]) groups.add(item.group_id);
    }
    assert.deepEqual([...groups], [0]);
    // Answers that became the same are one, their counts added: 回答0 was 3 in 1001 and 2 in 1003.
    const first = JSON.parse(lines.find((line) => line.includes('"话题0 关键"')) ?? '{}') as {
      answers: { keywords: string; count: number }[];
    };
    assert.equal(first.answers.find((answer) => answer.keywords === '回答0')?.count, 5);
  });

  it('a damaged file is refused naming the line and field; a dry run writes nothing', async (t) => {
    const dir = await tempDir(t);
    const target = await engine.open(t);
    const header = JSON.stringify({ format: 'chorus-corpus', version: 1, contexts: 2 });
    const good = JSON.stringify({ keywords: '好', time: 1, trigger_count: 1, clear_time: 0, answers: [], bans: [] });
    const bad = JSON.stringify({
      keywords: '坏',
      time: 1,
      trigger_count: 1,
      clear_time: 0,
      answers: [{ keywords: 'x', group_id: -1, count: 1, time: 1 }],
    });
    const file = join(dir, 'bad.jsonl.gz');
    await writeFile(file, gzipSync(`${header}\n${good}\n${bad}\n`));
    await assert.rejects(importCorpus(target.corpus, file), (error: unknown) => {
      assert.ok(error instanceof ImportStoppedError && error.cause instanceof CorpusFileError);
      assert.match(error.message, /line 3: answers\[0\]\.group_id: expected an integer >= 0/);
      assert.deepEqual(error.cause.params, { line: 3, field: 'answers[0].group_id', expected: 'integer', min: 0 });
      return true;
    });
    await writeFile(file, 'not gzip at all');
    await assert.rejects(importCorpus(target.corpus, file), /not a gzip file/);
    await writeFile(file, gzipSync(`${JSON.stringify({ format: 'other' })}\n`));
    await assert.rejects(importCorpus(target.corpus, file), /line 1: not a Chorus corpus file/);

    // The line before the bad one was written (the error says so).
    assert.equal(await target.corpus.countContexts(), 1);

    const dryLine = JSON.stringify({ keywords: '干跑', time: 1, trigger_count: 1, clear_time: 0 });
    await writeFile(file, gzipSync(`${header}\n${dryLine}\n`));
    const dry = await importCorpus(target.corpus, file, { dryRun: true });
    assert.deepEqual([dry.dry_run, dry.contexts_added], [true, 1]);
    assert.equal(await target.corpus.countContexts(), 1);
  });

  it(
    'a line over the cap is dropped as it arrives and counted: memory stays bounded',
    { timeout: 120_000 },
    async (t) => {
      const dir = await tempDir(t);
      const target = await engine.open(t);
      const file = join(dir, 'huge-line.jsonl.gz');
      // 256 MiB on one line (held whole, it cost +518 MB and stayed).
      await fileWithHugeLine(file, 256 * 1024 * 1024, [
        line('后面 一句', [{ keywords: '后面', messages: ['后面的回答'] }]),
      ]);
      const memory = residentMemory();
      const before = memory.now();
      memory.resetPeak();
      const report = await importCorpus(target.corpus, file);
      const grew = memory.peak() - before;
      assert.ok(grew < 100 * 1024 * 1024, `resident memory grew by ${Math.round(grew / 1024 / 1024)} MB`);
      assert.deepEqual(
        [report.skipped_lines_too_long, report.contexts_read, report.contexts_added],
        [1, 2, 2],
        'the line is counted and the lines around it are imported',
      );
      assert.ok(await target.corpus.findByKeywords('后面 一句'));

      // The cap is a setting of the reader: a small one drops a line just over it.
      const small = join(dir, 'small-cap.jsonl.gz');
      await fileWithHugeLine(small, 600, [line('再后面', [{ keywords: 'x', messages: ['x'] }])]);
      const capped = await importCorpus(target.corpus, small, { lineMaxBytes: 512 });
      assert.deepEqual([capped.skipped_lines_too_long, capped.contexts_read], [1, 2]);
      await assert.rejects(importCorpus(target.corpus, small, { lineMaxBytes: 16 }), /line 1: longer than 16 bytes/);
    },
  );

  it('a context whose line would pass the cap is exported as several lines and imported whole', async (t) => {
    const dir = await tempDir(t);
    const source = await engine.open(t);
    const wide: Context = {
      keywords: '很宽 的话题',
      time: 9,
      triggerCount: 3,
      clearTime: 0,
      answers: Array.from({ length: 40 }, (_, i) => ({
        keywords: `宽回答${i}`,
        groupId: 5,
        count: 1 + i,
        time: 9,
        messages: Array.from({ length: 70 }, (_, m) => `宽回答${i}的第${m}种说法`),
      })),
      bans: [{ keywords: '宽回答1', groupId: 5, reason: 'r', time: 9 }],
    };
    await seed(source, [wide]);
    const file = join(dir, 'wide.jsonl.gz');
    await exportCorpus(source.corpus, file, { ...options, lineMaxBytes: 16 * 1024 });
    const lines = gunzipSync(await readFile(file))
      .toString('utf8')
      .trim()
      .split('\n')
      .slice(1);
    assert.ok(lines.length > 1, 'written as several lines');
    for (const line of lines) assert.ok(Buffer.byteLength(line) <= 16 * 1024);
    const target = await engine.open(t);
    const report = await importCorpus(target.corpus, file, { lineMaxBytes: 16 * 1024 });
    assert.deepEqual([report.skipped_lines_too_long, report.contexts_added, report.messages_added], [0, 1, 2800]);
    assert.deepEqual(await dump(target), await dump(source));
  });

  it('keywords, answers and messages the live path refuses are left out and counted', async (t) => {
    const dir = await tempDir(t);
    const target = await engine.open(t);
    const longKeywords = '长'.repeat(CORPUS_TEXT_LIMITS.keywordsMaxChars + 1);
    const longAnswer = '答'.repeat(CORPUS_TEXT_LIMITS.answerMaxChars + 1);
    const lines = [
      HEADER,
      line(longKeywords, [{ keywords: '好', messages: ['好'] }]),
      line(
        '正常 一句',
        [
          { keywords: '短', messages: ['短', longAnswer] },
          { keywords: '全长', messages: [longAnswer] },
          { keywords: longKeywords, messages: ['x'] },
          { keywords: '无消息', messages: [] },
        ],
        ['短', longKeywords],
      ),
      line('最长 可以', [
        {
          keywords: 'k'.repeat(CORPUS_TEXT_LIMITS.keywordsMaxChars),
          messages: ['m'.repeat(CORPUS_TEXT_LIMITS.answerMaxChars)],
        },
      ]),
    ];
    const file = join(dir, 'limits.jsonl.gz');
    await writeFile(file, gzipSync(`${lines.join('\n')}\n`));
    const report = await importCorpus(target.corpus, file);
    assert.deepEqual(
      [
        report.contexts_read,
        report.contexts_added,
        report.skipped_contexts_too_long,
        report.skipped_answers_too_long,
        report.skipped_messages_too_long,
        report.skipped_bans_too_long,
      ],
      [3, 2, 1, 2, 2, 1],
    );
    assert.equal(await target.corpus.findByKeywords(longKeywords), null);
    const kept = await target.corpus.findByKeywords('正常 一句');
    assert.deepEqual(kept?.answers.map((answer) => [answer.keywords, answer.messages]).sort(), [
      ['无消息', []],
      ['短', ['短']],
    ]);
    assert.deepEqual(
      kept?.bans.map((ban) => ban.keywords),
      ['短'],
    );
    // At the limits exactly: kept whole.
    const longest = await target.corpus.findByKeywords('最长 可以');
    assert.equal(longest?.answers[0]?.messages[0]?.length, CORPUS_TEXT_LIMITS.answerMaxChars);
    // Nothing stored is longer than an answer may be.
    for await (const page of target.corpus.iterateAllContexts())
      for (const context of page)
        for (const answer of context.answers)
          for (const message of answer.messages) assert.ok(message.length <= CORPUS_TEXT_LIMITS.answerMaxChars);
  });

  it('a bad line stops the import after writing everything before it, and says how much that was', async (t) => {
    const dir = await tempDir(t);
    const target = await engine.open(t);
    const good = Array.from({ length: 120 }, (_, i) => line(`好 ${i}`, [{ keywords: `答${i}`, messages: [`答${i}`] }]));
    const file = join(dir, 'stops.jsonl.gz');
    await writeFile(file, gzipSync(`${[HEADER, ...good, '{not json', line('之后 一句')].join('\n')}\n`));
    await assert.rejects(importCorpus(target.corpus, file), (error: unknown) => {
      assert.ok(error instanceof ImportStoppedError);
      assert.match(
        error.message,
        /^line 122: not valid JSON; 120 contexts before it were imported and are kept \(120 added, 0 merged\); importing the file again after fixing it is safe$/,
      );
      assert.ok(error.cause instanceof CorpusFileError);
      assert.deepEqual([error.cause.code, error.cause.params], ['not_json', { line: 122 }]);
      assert.equal(error.report.contexts_added, 120);
      return true;
    });
    assert.equal(await target.corpus.countContexts(), 120, 'the report says what the store holds');
  });

  it('a missing file or a folder is refused with a clear error', async (t) => {
    const dir = await tempDir(t);
    const target = await engine.open(t);
    await assert.rejects(importCorpus(target.corpus, join(dir, 'none.jsonl.gz')), (error: unknown) => {
      assert.ok(error instanceof CorpusFileError);
      assert.equal(error.code, 'missing');
      assert.match(error.message, /none\.jsonl\.gz: no such file/);
      return true;
    });
    await mkdir(join(dir, 'folder.jsonl.gz'));
    await assert.rejects(importCorpus(target.corpus, join(dir, 'folder.jsonl.gz')), (error: unknown) => {
      assert.ok(error instanceof CorpusFileError);
      assert.equal(error.code, 'is_folder');
      return true;
    });
  });
});

it('chorus corpus export and import on the command line (SQLite data folders)', { timeout: 180_000 }, async (t) => {
  const dir = await tempDir(t);
  const env = { ...process.env, CHORUS_DATA_DIR: join(dir, 'a') };
  const { openStore } = await import('../../src/store/open-store.ts');
  const { DEFAULT_REPLY } = await import('../support/engines.ts');
  const store = await openStore({ databaseUrl: '', dataDir: join(dir, 'a'), poolMax: 1, reply: DEFAULT_REPLY });
  await seed(store, sampleCorpus().slice(0, 20));
  await store.close();
  const file = join(dir, 'cli.jsonl.gz');
  const cli = [CHORUS_MAIN, 'corpus'];
  const exported = await run(process.execPath, [...cli, 'export', '--out', file, '--project-dir', dir], { env });
  assert.equal((JSON.parse(exported.stdout) as { contexts: number }).contexts, 20);
  const intoB = { ...process.env, CHORUS_DATA_DIR: join(dir, 'b') };
  const imported = await run(process.execPath, [...cli, 'import', file, '--project-dir', dir], { env: intoB });
  assert.equal((JSON.parse(imported.stdout) as { contexts_added: number }).contexts_added, 20);
  const badGroup = await run(process.execPath, [...cli, 'export', '--group', 'abc'], { env }).catch(
    (error: { code: number; stderr: string }) => error,
  );
  assert.equal((badGroup as { code: number }).code, 2);
  assert.match((badGroup as { stderr: string }).stderr, /expected a group number/);

  // A missing file or a folder: one clear line and a non-zero exit, no stack trace.
  for (const [source, says] of [
    [join(dir, 'missing.jsonl.gz'), /^chorus: .*missing\.jsonl\.gz: no such file\n$/],
    [dir, /^chorus: .*: a folder; give a corpus file \(\.jsonl\.gz\)\n$/],
  ] as const) {
    const failed = await run(process.execPath, [...cli, 'import', source, '--project-dir', dir], { env: intoB }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    assert.equal((failed as { code: number }).code, 1, source);
    assert.match((failed as { stderr: string }).stderr, says);
  }
});
