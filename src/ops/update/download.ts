/**
 * Downloads a release asset to a file (written as `<file>.download`, renamed when complete, so a
 * half file never has the final name), hashing it on the way, with a size cap and a timeout; and
 * reads `SHA256SUMS` (`<hex>  <name>` per line, as `sha256sum` writes it).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { once } from 'node:events';

export class DownloadError extends Error {
  override readonly name = 'DownloadError';
}

export interface DownloadRequest {
  url: string;
  file: string;
  fetch: typeof fetch;
  timeoutMs: number;
  maxBytes: number;
  signal?: AbortSignal;
  /** Bytes so far and the total when the server said it. */
  onProgress?: (bytes: number, total: number | null) => void;
}

/** Resolves with the file's SHA-256 (hex) once it is complete under its final name. */
export async function download(request: DownloadRequest): Promise<string> {
  const partial = `${request.file}.download`;
  const signals = [AbortSignal.timeout(request.timeoutMs), ...(request.signal ? [request.signal] : [])];
  const hash = createHash('sha256');
  let bytes = 0;
  let total: number | null = null;
  try {
    const response = await request.fetch(request.url, { signal: AbortSignal.any(signals) });
    if (!response.ok || response.body === null) throw new DownloadError(`HTTP ${response.status}`);
    const length = Number(response.headers.get('content-length'));
    total = Number.isFinite(length) && length > 0 ? length : null;
    if (total !== null && total > request.maxBytes) throw new DownloadError(`larger than ${request.maxBytes} bytes`);
    const out = createWriteStream(partial, { mode: 0o600 });
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        if (bytes > request.maxBytes) throw new DownloadError(`larger than ${request.maxBytes} bytes`);
        hash.update(chunk);
        if (!out.write(chunk)) await once(out, 'drain');
        request.onProgress?.(bytes, total);
      }
      if (total !== null && bytes !== total) throw new DownloadError(`truncated: ${bytes} of ${total} bytes`);
    } finally {
      out.end();
      await once(out, 'close');
    }
    await rename(partial, request.file);
    return hash.digest('hex');
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof DownloadError) throw new DownloadError(`${request.url}: ${error.message}`);
    const name = error instanceof Error ? error.name : '';
    if (name === 'TimeoutError')
      throw new DownloadError(`${request.url}: no complete answer within ${request.timeoutMs} ms`);
    if (total !== null && bytes < total)
      throw new DownloadError(`${request.url}: truncated: the connection closed after ${bytes} of ${total} bytes`);
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
    throw new DownloadError(`${request.url}: ${error instanceof Error ? error.message : String(error)}${cause}`);
  }
}

/** `SHA256SUMS` as a map from file name to lower-case hex. */
export function parseSums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const match = /^([0-9a-fA-F]{64})\s+\*?(.+?)\s*$/.exec(line);
    if (match?.[1] && match[2]) sums.set(match[2].replace(/^\.\//, ''), match[1].toLowerCase());
  }
  return sums;
}
