/**
 * Facts about the process and the host for `GET /system`: CPU as a share of one core (process)
 * and of all cores (host) since the previous call, memory, and the disk holding the data folder.
 */
import { statfs } from 'node:fs/promises';
import { cpus, freemem, loadavg, totalmem } from 'node:os';

export interface SystemFacts {
  process: {
    pid: number;
    cpu_percent: number | null;
    rss_bytes: number;
    heap_used_bytes: number;
    heap_total_bytes: number;
  };
  host: {
    cpu_count: number;
    cpu_percent: number | null;
    load_avg: number[];
    memory_total_bytes: number;
    memory_free_bytes: number;
  };
  disk: { path: string; total_bytes: number; free_bytes: number } | null;
}

export class SystemSampler {
  #last: { at: bigint; cpu: NodeJS.CpuUsage; host: { idle: number; total: number } } | null = null;

  constructor(private readonly dataDir: string) {}

  async sample(): Promise<SystemFacts> {
    const at = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    const host = hostTimes();
    const previous = this.#last;
    this.#last = { at, cpu, host };
    let processPercent: number | null = null;
    let hostPercent: number | null = null;
    if (previous) {
      const elapsedUs = Number(at - previous.at) / 1000;
      const usedUs = cpu.user - previous.cpu.user + (cpu.system - previous.cpu.system);
      if (elapsedUs > 0) processPercent = round((usedUs / elapsedUs) * 100);
      const total = host.total - previous.host.total;
      if (total > 0) hostPercent = round((1 - (host.idle - previous.host.idle) / total) * 100);
    }
    const memory = process.memoryUsage();
    return {
      process: {
        pid: process.pid,
        cpu_percent: processPercent,
        rss_bytes: memory.rss,
        heap_used_bytes: memory.heapUsed,
        heap_total_bytes: memory.heapTotal,
      },
      host: {
        cpu_count: cpus().length,
        cpu_percent: hostPercent,
        load_avg: loadavg().map(round),
        memory_total_bytes: totalmem(),
        memory_free_bytes: freemem(),
      },
      disk: await disk(this.dataDir),
    };
  }
}

function hostTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const cpu of cpus()) {
    idle += cpu.times.idle;
    total += cpu.times.user + cpu.times.nice + cpu.times.sys + cpu.times.idle + cpu.times.irq;
  }
  return { idle, total };
}

async function disk(path: string): Promise<SystemFacts['disk']> {
  try {
    const stats = await statfs(path);
    return { path, total_bytes: stats.blocks * stats.bsize, free_bytes: stats.bavail * stats.bsize };
  } catch {
    return null;
  }
}

const round = (value: number) => Math.round(value * 10) / 10;
