/**
 * Links between the project's Markdown pages: every relative link must name a file that exists
 * and, with `#anchor`, a heading of that page (GitHub's and VitePress's slugs agree for the
 * headings we write: lower case, punctuation dropped, spaces as hyphens). Web addresses are not
 * followed (no network in tests); they are few and name public projects.
 */
import { existsSync, statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';

export interface BrokenLink {
  file: string;
  line: number;
  target: string;
  why: string;
}

const SKIPPED_FOLDERS = new Set(['node_modules', '.git', 'dist', '.vitepress', 'test-output', 'release']);

/** README.md and every .md file under docs/, src/ and web/, relative to `root`. */
export async function markdownFiles(root: string): Promise<string[]> {
  const found: string[] = ['README.md'];
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
      if (SKIPPED_FOLDERS.has(entry.name)) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith('.md')) found.push(path);
    }
  };
  for (const dir of ['docs', 'src', 'web']) if (existsSync(join(root, dir))) await walk(dir);
  return found.sort();
}

export function slugOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, '')
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors a page offers: its headings' slugs (a repeated heading gets -1, -2 …). */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutCode(text)) {
    const match = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!match) continue;
    const slug = slugOf(match[1] as string);
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** The page's lines with fenced code blocks blanked, so that code is never read as links or headings. */
function withoutCode(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

const LINK = /!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

export async function brokenLinks(root: string, files: readonly string[]): Promise<BrokenLink[]> {
  const broken: BrokenLink[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsOfFile = async (path: string): Promise<Set<string>> => {
    let anchors = anchorCache.get(path);
    if (!anchors) {
      anchors = anchorsOf(await readFile(join(root, path), 'utf8'));
      anchorCache.set(path, anchors);
    }
    return anchors;
  };
  for (const file of files) {
    const lines = withoutCode(await readFile(join(root, file), 'utf8'));
    for (const [index, rawLine] of lines.entries()) {
      const line = rawLine.replace(/`[^`]*`/g, '');
      for (const match of line.matchAll(LINK)) {
        const target = match[1] as string;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
        const resolved = pathPart === '' ? file : relative(root, join(root, dirname(file), decodeURI(pathPart)));
        const report = (why: string) => broken.push({ file, line: index + 1, target, why });
        if (resolved.startsWith('..')) {
          report('outside the repository');
          continue;
        }
        if (!existsSync(join(root, resolved))) {
          report('no such file');
          continue;
        }
        if (anchor === undefined || anchor === '') continue;
        if (statSync(join(root, resolved)).isDirectory() || !resolved.endsWith('.md')) {
          report('an anchor on something that is not a page');
          continue;
        }
        if (!(await anchorsOfFile(resolved)).has(anchor)) report('no such heading');
      }
    }
  }
  return broken;
}
