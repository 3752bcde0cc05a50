/**
 * Module hooks for the tests (register.mjs): a `.ts` URL inside the repository gets the JavaScript
 * compiled for it in `.test-build/`, as an ES module. The URL stays the source's, so the module's
 * import.meta.url, its relative imports and the paths it computes are unchanged.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

let root = '';
let build = '';

export function initialize(data) {
  root = data.root;
  build = data.build;
}

/** The compiled `./x.js` a source wrote as `./x.ts` is that source again. */
export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  if (parent?.startsWith(root) && parent.endsWith('.ts') && /^\.\.?\//.test(specifier) && specifier.endsWith('.js')) {
    const source = new URL(`${specifier.slice(0, -'.js'.length)}.ts`, parent);
    if (existsSync(fileURLToPath(source))) return { url: source.href, format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith(root) || !url.endsWith('.ts')) return nextLoad(url, context);
  const compiled = new URL(`${url.slice(root.length, -'.ts'.length)}.js`, build);
  try {
    return { format: 'module', source: await readFile(compiled), shortCircuit: true };
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
    throw new Error(
      `${url.slice(root.length)} is not in the compiled test build (.test-build/): ` +
        'run `node test/support/compiled-tests/build.mjs`, or run the file with `node --import tsx`',
    );
  }
}
