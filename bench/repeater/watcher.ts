/**
 * Someone watching the console while the bot works (bench:repeater --watched): every second the
 * overview, the message stats and a group's decisions are read over real HTTP, and one client
 * follows the live log stream. Counts what it read, so the run shows the watching happened.
 */
export interface Watcher {
  readonly counts: { polls: number; failed: number; streamBytes: number };
  stop(): Promise<void>;
}

export function startWatcher(api: string, token: string, groupId: number): Watcher {
  const headers = { 'x-chorus-token': token };
  const counts = { polls: 0, failed: 0, streamBytes: 0 };
  const paths = ['/home/overview', '/message-stats?minutes=60', `/repeater/decisions?group_id=${groupId}&limit=50`];
  const poll = async () => {
    await Promise.all(
      paths.map(async (path) => {
        try {
          const response = await fetch(`${api}${path}`, { headers });
          await response.arrayBuffer();
          if (response.ok) counts.polls++;
          else counts.failed++;
        } catch {
          counts.failed++;
        }
      }),
    );
  };
  const timer = setInterval(() => void poll(), 1000);
  const abort = new AbortController();
  const stream = (async () => {
    try {
      const response = await fetch(`${api}/logs/stream`, { headers, signal: abort.signal });
      if (!response.body) return;
      for await (const chunk of response.body) counts.streamBytes += (chunk as Uint8Array).byteLength;
    } catch {
      // Aborted at stop.
    }
  })();
  return {
    counts,
    async stop() {
      clearInterval(timer);
      abort.abort();
      await stream;
    },
  };
}
