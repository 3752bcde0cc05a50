/**
 * `npm run release`: builds, from this checkout, the three files the updater consumes
 * (docs/update.md): `chorus-<v>.tar.gz` (one folder `chorus-<v>/` with package.json,
 * package-lock.json, bin/, dist/, web/dist/, CHANGELOG.md; `npm ci --omit=dev` inside it installs
 * what it runs on), `chorus-web-<v>.tar.gz` (folder `chorus-web-<v>/` with index.html) and
 * `SHA256SUMS`, into `release/`.
 *
 * Reproducible: the same tree gives the same checksums. Members are sorted, owned by 0:0, their
 * times set to one fixed instant (SOURCE_DATE_EPOCH when given, else the commit time of HEAD),
 * modes normalised; gzip's header carries no name and no time. The compiler and the bundler
 * already emit the same bytes for the same input.
 *
 * Options: `--out DIR` (default release/), `--version V` (default package.json's; the archived
 * package.json says V), `--skip-changelog-check` (tests building a throwaway version).
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** 2020-01-01, when neither SOURCE_DATE_EPOCH nor git can say when the tree was made. */
const FALLBACK_EPOCH = 1_577_836_800;

export interface ReleaseOptions {
  root: string;
  out: string;
  version?: string;
  checkChangelog?: boolean;
  log?: (line: string) => void;
}

export interface ReleaseResult {
  version: string;
  files: { name: string; sha256: string; bytes: number }[];
}

/** The changelog must say what this version brings before it is released (CHANGELOG.md, newest first). */
export function changelogHasVersion(changelog: string, version: string): boolean {
  const escaped = version.replace(/[.+]/g, (c) => `\\${c}`);
  return new RegExp(`^## \\[?v?${escaped}\\]?(\\s|$)`, 'm').test(changelog);
}

async function sourceEpoch(root: string): Promise<number> {
  const fromEnv = Number(process.env.SOURCE_DATE_EPOCH);
  if (Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  try {
    const { stdout } = await run('git', ['log', '-1', '--format=%ct'], { cwd: root });
    const epoch = Number(stdout.trim());
    return Number.isInteger(epoch) && epoch > 0 ? epoch : FALLBACK_EPOCH;
  } catch {
    return FALLBACK_EPOCH;
  }
}

/** A deterministic .tar.gz of `folder` (a child of `parent`), with GNU tar's reproducibility flags. */
export async function packReproducibly(parent: string, folder: string, epoch: number): Promise<Buffer> {
  const { stdout } = await run(
    'tar',
    [
      '--sort=name',
      '--format=gnu',
      `--mtime=@${epoch}`,
      '--owner=0',
      '--group=0',
      '--numeric-owner',
      '--mode=u+rwX,go+rX,go-w',
      '-cf',
      '-',
      folder,
    ],
    { cwd: parent, encoding: 'buffer', maxBuffer: 1024 * 1024 * 1024 },
  );
  // zlib writes no file name and a zero time into the gzip header.
  return gzipSync(stdout, { level: 9 });
}

async function buildInto(root: string, bot: string, web: string): Promise<void> {
  await run(
    process.execPath,
    [
      join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      join(root, 'tsconfig.build.json'),
      // The same JavaScript without type checking (2.5 times faster): checking the types is
      // `npm test`'s job, which the release workflow runs before it builds a release.
      '--noCheck',
      '--outDir',
      join(bot, 'dist'),
    ],
    { cwd: root },
  ).catch((error: unknown) => {
    // tsc reports type errors on stdout; say them, not only that it failed.
    const output = (error as { stdout?: string }).stdout ?? '';
    throw new Error(`the TypeScript build failed:\n${output.trim() || String(error)}`);
  });
  const { build } = await import('vite');
  await build({
    configFile: join(root, 'web', 'vite.config.ts'),
    logLevel: 'warn',
    build: { outDir: web, emptyOutDir: true },
  });
  await cp(web, join(bot, 'web', 'dist'), { recursive: true });
  await mkdir(join(bot, 'bin'), { recursive: true });
  await cp(join(root, 'bin', 'chorus.js'), join(bot, 'bin', 'chorus.js'));
  for (const file of ['package-lock.json', 'CHANGELOG.md', 'README.md']) await cp(join(root, file), join(bot, file));
}

/** The built tree, not yet versioned or packed: `stageRelease` once, `packRelease` per version. */
export interface StagedRelease {
  root: string;
  folder: string;
  epoch: number;
  close(): Promise<void>;
}

export async function stageRelease(root: string): Promise<StagedRelease> {
  const folder = await mkdtemp(join(tmpdir(), 'chorus-release-'));
  try {
    await buildInto(root, join(folder, 'bot'), join(folder, 'web'));
    return { root, folder, epoch: await sourceEpoch(root), close: () => rm(folder, { recursive: true, force: true }) };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

/** Writes `chorus-<v>.tar.gz`, `chorus-web-<v>.tar.gz` and `SHA256SUMS` for `version` into `out`. */
export async function packRelease(staged: StagedRelease, version: string, out: string): Promise<ReleaseResult> {
  const pkg = JSON.parse(await readFile(join(staged.root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const work = await mkdtemp(join(tmpdir(), 'chorus-pack-'));
  try {
    const botName = `chorus-${version}`;
    const webName = `chorus-web-${version}`;
    await cp(join(staged.folder, 'bot'), join(work, botName), { recursive: true });
    await cp(join(staged.folder, 'web'), join(work, webName), { recursive: true });
    await writeFile(join(work, botName, 'package.json'), `${JSON.stringify({ ...pkg, version }, null, 2)}\n`);
    await mkdir(out, { recursive: true });
    const files: ReleaseResult['files'] = [];
    for (const name of [botName, webName]) {
      const bytes = await packReproducibly(work, name, staged.epoch);
      await writeFile(join(out, `${name}.tar.gz`), bytes);
      files.push({
        name: `${name}.tar.gz`,
        sha256: createHash('sha256').update(bytes).digest('hex'),
        bytes: bytes.length,
      });
    }
    // sha256sum's own format: `sha256sum -c SHA256SUMS` checks it.
    await writeFile(join(out, 'SHA256SUMS'), files.map((file) => `${file.sha256}  ${file.name}\n`).join(''));
    return { version, files };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

export async function buildRelease(options: ReleaseOptions): Promise<ReleaseResult> {
  const log = options.log ?? (() => undefined);
  const pkg = JSON.parse(await readFile(join(options.root, 'package.json'), 'utf8')) as Record<string, unknown>;
  const version = options.version ?? String(pkg.version);
  if (options.checkChangelog !== false) {
    const changelog = await readFile(join(options.root, 'CHANGELOG.md'), 'utf8');
    if (!changelogHasVersion(changelog, version))
      throw new Error(`CHANGELOG.md has no entry "## ${version}": say what this release brings first`);
  }
  log(`building chorus-${version} and chorus-web-${version}`);
  const staged = await stageRelease(options.root);
  try {
    const result = await packRelease(staged, version, options.out);
    for (const file of result.files) log(`${file.name}  ${file.bytes} bytes  sha256 ${file.sha256}`);
    return result;
  } finally {
    await staged.close();
  }
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const valueOf = (flag: string) => {
    const at = args.indexOf(flag);
    return at >= 0 ? args[at + 1] : undefined;
  };
  buildRelease({
    root: REPO_ROOT,
    out: resolve(valueOf('--out') ?? join(REPO_ROOT, 'release')),
    ...(valueOf('--version') ? { version: valueOf('--version') as string } : {}),
    checkChangelog: !args.includes('--skip-changelog-check'),
    log: (line) => process.stdout.write(`${line}\n`),
  }).then(
    (result) => process.stdout.write(`release ${result.version}: ${result.files.length} archives and SHA256SUMS\n`),
    (error: unknown) => {
      process.stderr.write(`release: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
