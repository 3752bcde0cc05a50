/** Reads an optional config file: a missing file is simply not there, any other failure stops. */
import { readFile } from 'node:fs/promises';
import { ConfigFileError } from '../errors.ts';

export async function readOptionalText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new ConfigFileError(path, undefined, undefined, `cannot be read (${code ?? 'unknown error'})`);
  }
}
