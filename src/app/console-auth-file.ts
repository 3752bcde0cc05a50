/**
 * `<dataDir>/console-auth.json` (docs/rules.md#console-auth): the random session
 * secret and a generated console token, written atomically with mode 0600. The console never runs
 * open: when no CHORUS_CONSOLE_TOKEN is configured, the generated token is the read and write
 * token, and the first start that uses it prints it once in the log. That line is the one place a
 * secret is ever printed; the file records that it was, so no later start prints it again.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { writeFileAtomic } from '../config/index.ts';

export const CONSOLE_AUTH_FILE = 'console-auth.json';

interface AuthFile {
  v: 1;
  session_secret: string;
  generated_token: string;
  /** Whether the generated token was printed (it is printed at most once). */
  announced: boolean;
  created_at: number;
}

export interface StoredConsoleAuth {
  readonly generatedToken: string;
  readonly sessionSecret: Buffer;
  /** The file it was read from, so the session secret can be rotated in place. */
  readonly path: string;
}

const SECRET_BYTES = 32;
const TOKEN_BYTES = 32;

async function readAuthFile(path: string): Promise<AuthFile | null> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`${path}: not valid JSON; fix it, or delete it to generate a new console token`);
  }
  const file = value as Partial<AuthFile> | null;
  if (
    typeof file !== 'object' ||
    file === null ||
    typeof file.session_secret !== 'string' ||
    !/^[0-9a-f]{64}$/.test(file.session_secret) ||
    typeof file.generated_token !== 'string' ||
    file.generated_token.length < 16
  ) {
    throw new Error(`${path}: unexpected content; fix it, or delete it to generate a new console token`);
  }
  return {
    v: 1,
    session_secret: file.session_secret,
    generated_token: file.generated_token,
    announced: file.announced === true,
    created_at: typeof file.created_at === 'number' ? file.created_at : 0,
  };
}

/**
 * Loads the file, creating it on first start. `tokenConfigured` says whether CHORUS_CONSOLE_TOKEN
 * is set; when it is not, the generated token is in use and is announced if it never was.
 */
export async function loadConsoleAuth(
  dataDir: string,
  tokenConfigured: boolean,
  logger: Logger,
  nowMs: number,
): Promise<StoredConsoleAuth> {
  const path = join(dataDir, CONSOLE_AUTH_FILE);
  let file = await readAuthFile(path);
  const created = file === null;
  file ??= {
    v: 1,
    session_secret: randomBytes(SECRET_BYTES).toString('hex'),
    generated_token: randomBytes(TOKEN_BYTES).toString('base64url'),
    announced: false,
    created_at: Math.floor(nowMs / 1000),
  };
  const announce = !tokenConfigured && !file.announced;
  if (announce) file.announced = true;
  if (created || announce) await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  if (announce) {
    // Written to the log whatever its level, because nobody could log in otherwise. The token is in
    // the message text on purpose: redaction would hide it in a field.
    logger
      .child({}, { level: 'info' })
      .warn(
        `console token generated (read and write; stored in ${path}; this is the only time it is printed): ` +
          file.generated_token,
      );
  }
  return { generatedToken: file.generated_token, sessionSecret: Buffer.from(file.session_secret, 'hex'), path };
}

/**
 * "Log out everywhere": a new random session secret, written atomically before it is used, so
 * every session cookie made before ends, in this process at once and in any later start. The
 * generated token is kept.
 */
export async function rotateSessionSecret(stored: StoredConsoleAuth): Promise<StoredConsoleAuth> {
  const file = await readAuthFile(stored.path);
  if (file === null) throw new Error(`${stored.path}: missing; restart Chorus to recreate it`);
  const next: AuthFile = { ...file, session_secret: randomBytes(SECRET_BYTES).toString('hex') };
  await writeFileAtomic(stored.path, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  return { ...stored, sessionSecret: Buffer.from(next.session_secret, 'hex') };
}
