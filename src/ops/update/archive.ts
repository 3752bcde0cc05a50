/**
 * Unpacks a release archive (`.tar.gz` with one root folder) with the system `tar`, after checking
 * its list of members: relative paths only, no `..`, everything under the expected root. What was
 * unpacked is then walked: only regular files and folders are accepted (a link could point
 * anywhere), so an archive cannot write or expose anything outside its folder.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { runCommand } from '../command.ts';

export class ArchiveError extends Error {
  override readonly name = 'ArchiveError';
}

const TAR_TIMEOUT_MS = 5 * 60_000;

/** Unpacks `archive` into `intoDir`; resolves with the path of its root folder. */
export async function unpack(archive: string, intoDir: string, root: string, signal?: AbortSignal): Promise<string> {
  const members: string[] = [];
  const listed = await runCommand('tar', ['-tzf', archive], {
    cwd: intoDir,
    timeoutMs: TAR_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
    onLine: (line) => members.push(line),
    tailChars: 2000,
  });
  if (listed.code !== 0) throw new ArchiveError(`not a readable .tar.gz (${lastLine(listed.tail)})`);
  for (const member of members) {
    const parts = member.split('/').filter((part) => part !== '' && part !== '.');
    if (member.startsWith('/') || parts.includes('..') || member.includes('\\'))
      throw new ArchiveError(`unsafe member path: ${member}`);
    if (parts[0] !== root) throw new ArchiveError(`member outside the root folder ${root}/: ${member}`);
  }
  if (members.length === 0) throw new ArchiveError('the archive is empty');
  const extracted = await runCommand('tar', ['-xzf', archive, '--no-same-owner', '--no-same-permissions'], {
    cwd: intoDir,
    timeoutMs: TAR_TIMEOUT_MS,
    ...(signal ? { signal } : {}),
    tailChars: 2000,
  });
  if (extracted.code !== 0) throw new ArchiveError(`unpacking failed (${lastLine(extracted.tail)})`);
  const top = join(intoDir, root);
  await onlyFilesAndFolders(top);
  return top;
}

async function onlyFilesAndFolders(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await onlyFilesAndFolders(path);
    else if (!entry.isFile() || !(await lstat(path)).isFile())
      throw new ArchiveError(`not a regular file or folder: ${entry.name}`);
  }
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? 'no output';
}
