/**
 * Seeding a corpus from a QQ group chat's text export (QQ's "导出消息记录" as .txt): each message
 * goes through the same learning path as a live one, in order, as if it had just arrived: its
 * keywords from the shared extractor, the pair (previous message → this one) offered to a
 * LearningQueue (which excludes repeats, quoted replies and over-long texts), the contamination
 * guard, then the store's atomic learn. Placeholders the export writes instead of media
 * (`[图片]`, `[表情]`, …) are not text: a message made only of them is skipped.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { LearningQueue } from '../../corpus/learning-queue.ts';
import type { LearnInput } from '../../domain/corpus.ts';
import { rejectsMessage, type GuardRule } from '../../domain/guard.ts';
import { escapeText } from '../../onebot/cq-code.ts';
import { describeText, type KeywordExtractor } from '../../repeater/keywords.ts';
import { yieldToEventLoop } from '../../common/adaptive-chunk.ts';
import { CorpusFileError } from './format.ts';

/** `2023-05-01 12:00:01 昵称(123456789)` or `… 昵称<someone@example.com>` */
const HEADER = /^(\d{4})-(\d{1,2})-(\d{1,2}) (\d{1,2}):(\d{2}):(\d{2}) (.*?)(?:\((\d{5,12})\)|<[^>]*>)\s*$/;
const PLACEHOLDER = /\[(?:图片|表情|语音|视频|文件|动画表情|闪照|QQ红包|位置|戳一戳)\]/g;

export interface QqExportTarget {
  learnAnswer(input: LearnInput): Promise<boolean>;
}

export interface QqExportReport {
  messages: number;
  skipped_media_only: number;
  pairs_learned: number;
  excluded: number;
  too_long: number;
  guard_rejected: number;
  seconds: number;
}

interface ExportedMessage {
  time: number;
  text: string;
}

export async function importQqExport(
  target: QqExportTarget,
  path: string,
  options: { groupId: number; keywords: KeywordExtractor; guard: GuardRule; dryRun?: boolean },
): Promise<QqExportReport> {
  const started = performance.now();
  const report: QqExportReport = {
    messages: 0,
    skipped_media_only: 0,
    pairs_learned: 0,
    excluded: 0,
    too_long: 0,
    guard_rejected: 0,
    seconds: 0,
  };
  // No pressure offline: the queue's rules decide, its capacity never matters (drained per message).
  const queue = new LearningQueue(() => 0);
  let previous: { rawMessage: string; keywords: string } | null = null;
  const learn = async (message: ExportedMessage): Promise<void> => {
    const plain = message.text.replace(PLACEHOLDER, '').trim();
    if (plain === '') {
      report.skipped_media_only++;
      return;
    }
    report.messages++;
    const raw = escapeText(plain);
    const text = describeText(raw, plain, options.keywords);
    const outcome = queue.enqueue({
      predecessor: previous,
      current: {
        groupId: options.groupId,
        rawMessage: text.rawMessage,
        keywords: text.keywords,
        time: message.time,
        isPlainText: text.isPlainText,
      },
    });
    previous = { rawMessage: text.rawMessage, keywords: text.keywords };
    if (outcome === 'excluded') report.excluded++;
    if (outcome === 'too_long') report.too_long++;
    for (let job = queue.queue.take(); job; job = queue.queue.take()) {
      if (rejectsMessage(options.guard, job.input.message)) {
        report.guard_rejected++;
        continue;
      }
      if (options.dryRun !== true) await target.learnAnswer(job.input);
      report.pairs_learned++;
    }
    if (report.messages % 256 === 0) await yieldToEventLoop();
  };
  let current: ExportedMessage | null = null;
  let headers = 0;
  const input = createReadStream(path, { encoding: 'utf8' });
  const reader = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const rawLine of reader) {
      const line = rawLine.replace(/^\uFEFF/, '');
      const header = HEADER.exec(line);
      if (header) {
        headers++;
        if (current) await learn(current);
        const [, y, mo, d, h, mi, s] = header.map(Number);
        current = { time: Math.floor(new Date(y ?? 0, (mo ?? 1) - 1, d, h, mi, s).getTime() / 1000), text: '' };
        continue;
      }
      if (current && line.trim() !== '') current.text += current.text === '' ? line : `\n${line}`;
    }
    if (current) await learn(current);
  } finally {
    reader.close();
    input.destroy();
  }
  if (headers === 0) {
    throw new CorpusFileError(
      `${path}: no message found (expected QQ's text export: "2023-05-01 12:00:01 name(12345)")`,
    );
  }
  report.seconds = (performance.now() - started) / 1000;
  return report;
}
