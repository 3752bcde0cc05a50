/**
 * Every unit test file, run in this one process (test:node lists this file instead of them). A
 * unit test starts no service and keeps no state past its tests, so it needs no process of its
 * own; one process loads the TypeScript loader and the modules under test once instead of once
 * per file (73 files: 100 s of CPU one process each, 19 s in one; docs/testing.md).
 *
 * The files are imported one after another inside one suite: node:test collects every test before
 * it runs the first, so no test runs while the next file is still loading (a loading file holds
 * the event loop, and a test waiting on a timer would see it late).
 */
import { readdirSync } from 'node:fs';
import { describe } from 'node:test';

const unitFolder = new URL('./unit/', import.meta.url);
const files = readdirSync(unitFolder, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.test.ts'))
  .sort();

describe(`unit tests (${files.length} files in test/unit)`, async () => {
  for (const file of files) await import(new URL(file, unitFolder).href);
});
