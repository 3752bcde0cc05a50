/**
 * A second process writing to a shared PostgreSQL schema, for the "two processes lose no update"
 * contract test. Usage: node --import tsx test/support/pg-writer.ts <url> <schema> <key> <n>
 * Prints "ready" once its store is open, runs n learn_answer calls on <key> (4 at a time), then
 * prints {"created": <how many of them created the context>}.
 */
import { openStore } from '../../src/store/open-store.ts';
import { DEFAULT_REPLY } from './engines.ts';

const [url, schema, key, count] = process.argv.slice(2);
if (!url || !schema || !key || !count) throw new Error('usage: pg-writer.ts <url> <schema> <key> <n>');
const total = Number(count);

const store = await openStore({ databaseUrl: url, dataDir: '', poolMax: 4, reply: DEFAULT_REPLY, schema });
try {
  process.stdout.write('ready\n');
  let created = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < total) {
        const i = next++;
        const input = {
          keywords: key,
          groupId: 1,
          answerKeywords: 'a',
          answerTime: 2000 + i,
          message: `child-${i}`,
          appendOnExisting: true,
        };
        if (await store.corpus.learnAnswer(input)) created++;
      }
    }),
  );
  process.stdout.write(`${JSON.stringify({ created })}\n`);
} finally {
  await store.close();
}
