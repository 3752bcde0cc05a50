// Writes `<file>.br` and `<file>.gz` beside every text file of the build, so `chorus serve` sends
// them without compressing at run time (src/console/static-compression.ts reads them). Node's own
// zlib does both; no plugin needed.
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Plugin } from 'vite';

const TEXT = new Set(['.html', '.js', '.mjs', '.css', '.json', '.svg', '.txt']);
const MIN_BYTES = 1024;
const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...(await filesUnder(path)));
    else if (TEXT.has(extname(entry.name))) found.push(path);
  }
  return found;
}

export function precompress(): Plugin {
  let outDir = 'dist';
  return {
    name: 'chorus-precompress',
    apply: 'build',
    configResolved(config) {
      outDir = resolve(config.root, config.build.outDir);
    },
    async closeBundle() {
      for (const file of await filesUnder(outDir)) {
        if ((await stat(file)).size < MIN_BYTES) continue;
        const data = await readFile(file);
        const br = await brotli(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } });
        await writeFile(`${file}.br`, br);
        await writeFile(`${file}.gz`, await gzipAsync(data, { level: 9 }));
      }
    },
  };
}
