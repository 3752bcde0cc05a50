/**
 * Module hooks for the tests (register.mjs): a `.ts` URL inside the repository gets the JavaScript
 * compiled for it in `.test-build/`, as an ES module. The URL stays the source's, so the module's
 * import.meta.url, its relative imports and the paths it computes are unchanged.
 *
 * The web console's sources (web/src) are written for Vite: imports without an extension, and some
 * reached only by an import whose path is computed, so tsc leaves them out of the build. Those few
 * are compiled here when first loaded (TypeScript's transpileModule, loaded only then), and an
 * import without an extension from a `.ts` file finds `<name>.ts` or `<name>/index.ts`.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

let root = '';
let build = '';
let typescript = null;

export function initialize(data) {
  root = data.root;
  build = data.build;
}

const RELATIVE = /^\.\.?\//;
/** What Node would load as written (`./corpus-browser.zh` is a name with a dot, not a file type). */
const HAS_EXTENSION = /\.(m?[jt]s|c[jt]s|json|node|vue|css|wasm)$/;

function existing(url) {
  return existsSync(fileURLToPath(url)) ? url.href : null;
}

/** The source a relative import of a repository `.ts` file means: `./x.js` or `./x` is `./x.ts`. */
function sourceFor(specifier, parent) {
  if (specifier.endsWith('.js')) return existing(new URL(`${specifier.slice(0, -'.js'.length)}.ts`, parent));
  if (HAS_EXTENSION.test(specifier)) return null;
  return existing(new URL(`${specifier}.ts`, parent)) ?? existing(new URL(`${specifier}/index.ts`, parent));
}

export async function resolve(specifier, context, nextResolve) {
  const parent = context.parentURL;
  if (parent?.startsWith(root) && parent.endsWith('.ts') && RELATIVE.test(specifier)) {
    const source = sourceFor(specifier, parent);
    if (source) return { url: source, format: 'module', shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

async function transpiled(url) {
  typescript ??= (await import('typescript')).default;
  const path = fileURLToPath(url);
  const { outputText } = typescript.transpileModule(await readFile(path, 'utf8'), {
    fileName: path,
    compilerOptions: { module: typescript.ModuleKind.ESNext, target: typescript.ScriptTarget.ES2022 },
  });
  return outputText;
}

export async function load(url, context, nextLoad) {
  if (!url.startsWith(root) || !url.endsWith('.ts')) return nextLoad(url, context);
  const compiled = new URL(`${url.slice(root.length, -'.ts'.length)}.js`, build);
  try {
    return { format: 'module', source: await readFile(compiled), shortCircuit: true };
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
    return { format: 'module', source: await transpiled(url), shortCircuit: true };
  }
}
