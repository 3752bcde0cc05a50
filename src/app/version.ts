import { readFileSync } from 'node:fs';

/** The package version, read once from package.json (two levels up from src/app and dist/app). */
export function readVersion(): string {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8');
  const parsed = JSON.parse(text) as { version?: unknown };
  return typeof parsed.version === 'string' ? parsed.version : '0.0.0';
}
