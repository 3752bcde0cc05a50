/**
 * Which local file holds a kind of AI log, confined to the folders the AI service writes to: the
 * managed checkout, a checkout beside the install folder, and the shared `/ai-logs` volume of a
 * container setup. An explicit path from the config is used when it lies inside them; a path
 * outside them — absolute, climbing out with `..`, or a symlink pointing out — is refused, never
 * read. Without an explicit file the usual names are looked for in each folder's `logs/`.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { AiExtensionConfig } from './config-file.ts';
import { isFile } from '../logs/index.ts';

export const LOG_KINDS = ['uvicorn', 'celery', 'celery-media'] as const;
export type LogKind = (typeof LOG_KINDS)[number];

/** File names per kind, in the order they are looked for. */
export const LOG_FILE_NAMES: Readonly<Record<LogKind, readonly string[]>> = {
  uvicorn: ['uvicorn.log', 'api.log', 'app.log'],
  celery: ['celery.log'],
  'celery-media': ['celery-media.log'],
};

const CONFIG_FIELD: Readonly<Record<LogKind, keyof AiExtensionConfig>> = {
  uvicorn: 'uvicorn_log_file',
  celery: 'celery_log_file',
  'celery-media': 'celery_media_log_file',
};

export const PATH_REFUSED = 'log path out of bounds; refused';

export interface LogFolders {
  /** Relative explicit paths are taken from here (the project folder). */
  baseDir: string;
  /** AI checkouts whose `logs/` may hold the files (managed first). */
  aiRoots: readonly string[];
  /** A folder holding the log files directly (the container volume), when it exists. */
  sharedLogDir: string | null;
}

export type ResolvedLog =
  | { readonly status: 'file'; readonly path: string }
  | { readonly status: 'refused'; readonly path: string }
  | { readonly status: 'absent'; readonly tried: readonly string[] };

export function explicitLogPath(config: AiExtensionConfig, kind: LogKind): string {
  return String(config[CONFIG_FIELD[kind]]).trim();
}

/** Every candidate path for a kind, in order (shared volume first, then each checkout). */
export function candidateLogPaths(folders: LogFolders, kind: LogKind): string[] {
  const dirs = [
    ...(folders.sharedLogDir ? [folders.sharedLogDir] : []),
    ...folders.aiRoots.map((root) => join(root, 'logs')),
  ];
  return dirs.flatMap((dir) => LOG_FILE_NAMES[kind].map((name) => join(dir, name)));
}

export async function resolveLogFile(
  config: AiExtensionConfig,
  kind: LogKind,
  folders: LogFolders,
): Promise<ResolvedLog> {
  const roots = await existingRoots(folders);
  const tried: string[] = [];
  const explicit = explicitLogPath(config, kind);
  if (explicit !== '') {
    const path = resolve(folders.baseDir, explicit);
    if (!(await isConfined(path, roots))) return { status: 'refused', path };
    if (await isFile(path)) return { status: 'file', path };
    tried.push(path);
  }
  for (const path of candidateLogPaths(folders, kind)) {
    if (tried.includes(path)) continue;
    tried.push(path);
    if (!(await isFile(path))) continue;
    if (!(await isConfined(path, roots))) return { status: 'refused', path };
    return { status: 'file', path };
  }
  return { status: 'absent', tried };
}

async function existingRoots(folders: LogFolders): Promise<string[]> {
  const roots = [...folders.aiRoots, ...(folders.sharedLogDir ? [folders.sharedLogDir] : [])];
  const real = await Promise.all(roots.map((root) => realpath(root).catch(() => null)));
  return real.filter((root): root is string => root !== null);
}

/**
 * Whether `path`, with every symlink followed, lies inside one of `roots` (already real paths). For
 * a path that does not exist yet, its nearest existing folder decides.
 */
export async function isConfined(path: string, roots: readonly string[]): Promise<boolean> {
  const real = await realPathOf(resolve(path));
  return roots.some((root) => {
    const rest = relative(root, real);
    return rest === '' || (rest !== '..' && !rest.startsWith(`..${sep}`) && !isAbsolute(rest));
  });
}

async function realPathOf(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const parent = dirname(path);
    if (parent === path) return path;
    return join(await realPathOf(parent), basename(path));
  }
}
