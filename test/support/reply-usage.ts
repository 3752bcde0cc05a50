/**
 * Waiting for "where used": the answers the bot sends are written to `reply_usage` every 2 s
 * (src/app/reply-usage-buffer.ts), so a page showing them waits for the rows, not a fixed time.
 */
import type { RunningService } from '../../src/app/service.ts';
import { ReplyUsageStore, usageKey } from '../../src/store/reply-usage.ts';
import { BROWSER_WAIT_MS } from './page-problems.ts';

/** Resolves once `reply_usage` holds the pair's sends in every group of `groups`. */
export async function replyUsageWritten(
  service: RunningService,
  pair: { contextKeywords: string; answerKeywords: string },
  groups: number[],
  timeoutMs = BROWSER_WAIT_MS,
): Promise<void> {
  const store = new ReplyUsageStore(service.store.engine);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const usage = (await store.usageOf([pair])).get(usageKey(pair.contextKeywords, pair.answerKeywords)) ?? [];
    if (groups.every((group) => usage.some((u) => u.groupId === group))) return;
    if (Date.now() > deadline)
      throw new Error(`reply usage of ${JSON.stringify(pair)} not written in ${groups.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
