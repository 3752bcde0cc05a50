/**
 * The server the tests start as `chorus`, compiled once per source state: `tsc --noCheck` of
 * src/ into `.test-server/` at the repository's top (the same depth as `dist/`, so the paths
 * Chorus finds from its own location, such as package.json and web/dist, are the same, and it
 * still runs inside the git work tree). A start from this build takes a third of the CPU of a
 * start through tsx (0.8 s against 2.3 s; a supervised `serve` starts two processes), and the
 * suite starts Chorus a few hundred times. It is also closer to what users run (`npm start` runs
 * the compiled `dist/`). Type errors are the type check's business (`npm test` runs it first).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { ROOT, sharedBuild, sourceHash } from './shared-build.ts';

const TARGET = join(ROOT, '.test-server');

async function compile(staging: string, stamp: string): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const child = spawn(
    process.execPath,
    [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--noCheck', '--sourceMap', 'false', '--outDir', staging],
    { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`compiling src/ for the tests failed (tsc exit ${code})`);
  await writeFile(join(staging, stamp), '');
}

/** The compiled `src/main.ts` of the current sources (compiled now if no test file has yet). */
export async function compiledMain(): Promise<string> {
  const stamp = `.source-${sourceHash(['src'], ['package-lock.json', 'tsconfig.json', 'tsconfig.build.json'])}`;
  const target = await sharedBuild({ target: TARGET, marker: stamp, build: (staging) => compile(staging, stamp) });
  return join(target, 'main.js');
}
