import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Helpers of the benchmark: servers pinned to a core, wrk runs on another, and what they measure. */
export const CORES = Math.max(1, Number(execFileSync('nproc').toString().trim()));
/** the server runs on core 0, the load generator on the last core (the same one on a one-core machine) */
export const SERVER_CPU = '0';
export const LOAD_CPU = String(CORES - 1);

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

export interface Server {
  name: string;
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
  /** the peak resident set size so far, in MiB (VmHWM) */
  peakRssMiB(): number;
  /** CPU time the server has used so far (user + system, its threads and any children it waited for), in ms */
  cpuMs(): number;
}

/** Clock ticks per second of /proc/<pid>/stat times. */
const TICKS = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

/**
 * User + system CPU time of a process from /proc/<pid>/stat, children it waited for included (fields 14–17; the
 * command name, field 2, may hold spaces and parentheses: fields are counted after its closing parenthesis).
 */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state): utime, stime, cutime, cstime are fields 14–17
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i] ?? 0), 0);
  return (ticks * 1000) / TICKS;
}

export async function startServer(
  name: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
  probe = '/',
): Promise<Server> {
  const port = await freePort();
  const child = spawn('taskset', ['-c', SERVER_CPU, process.execPath, ...args], {
    cwd,
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', NODE_ENV: 'production' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let attempt = 0; attempt < 150; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    const ok = await fetch(url + probe).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) {
      return {
        name,
        url,
        process: child,
        stop: async () => {
          if (child.exitCode !== null) return;
          const exited = new Promise((done) => child.once('exit', done));
          child.kill('SIGTERM');
          await exited;
        },
        cpuMs: () => cpuMsOf(child.pid ?? 0),
        peakRssMiB: () => {
          const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
          const kib = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0);
          return kib / 1024;
        },
      };
    }
    await new Promise((wait) => setTimeout(wait, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not answer ${probe} within 15 s`);
}

export interface WrkResult {
  requestsPerSecond: number;
  /** every request of the run */
  requests: number;
  p99Ms: number;
  meanMs: number;
  non2xx: number;
}

const toMs = (value: string, unit: string): number =>
  Number(value) * ({ us: 0.001, ms: 1, s: 1000, m: 60000 }[unit] ?? 1);

/** One wrk run on the load core: `connections` connections for `seconds`, with an optional Lua script. */
export function wrk(url: string, seconds: number, connections: number, script?: string): WrkResult {
  const args = [
    '-c',
    LOAD_CPU,
    'wrk',
    '-t1',
    `-c${connections}`,
    `-d${seconds}s`,
    '--latency',
    ...(script ? ['-s', script] : []),
    url,
  ];
  const out = execFileSync('taskset', args, { encoding: 'utf8', timeout: (seconds + 30) * 1000 });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const p99 = /99%\s+([\d.]+)(us|ms|s|m)/.exec(out);
  const mean = /Latency\s+([\d.]+)(us|ms|s|m)/.exec(out);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return {
    requestsPerSecond: rps,
    requests,
    p99Ms: p99 ? toMs(p99[1] ?? '0', p99[2] ?? 'ms') : NaN,
    meanMs: mean ? toMs(mean[1] ?? '0', mean[2] ?? 'ms') : NaN,
    non2xx,
  };
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? NaN)
    : ((sorted[middle - 1] ?? NaN) + (sorted[middle] ?? NaN)) / 2;
}

/** Installs Debian's wrk when it is missing (CI and fresh machines); the benchmark needs no other tool. */
export function ensureWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
  } catch (error) {
    // wrk --version exits 1 after printing its version: only a missing binary throws ENOENT
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return;
    console.log('installing wrk (Debian package)…');
    execFileSync('sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk'], {
      stdio: 'inherit',
    });
  }
}

export interface Measurement extends WrkResult {
  /** the server's CPU time over the measured run, per request, in microseconds */
  cpuUsPerRequest: number;
  /** the database server's CPU time over the run, per request, in microseconds (PostgreSQL only) */
  databaseCpuUsPerRequest?: number;
}

/**
 * A wrk run with the server's CPU time over it: what judges a server here (req/s swings 2× from run to run); with
 * `databaseCpuMs`, the database server's CPU time over the same run too.
 */
export function measure(server: Server, run: () => WrkResult, databaseCpuMs?: () => number): Measurement {
  const databaseBefore = databaseCpuMs?.() ?? 0;
  const before = server.cpuMs();
  const result = run();
  const cpuMs = server.cpuMs() - before;
  const databaseMs = databaseCpuMs === undefined ? undefined : databaseCpuMs() - databaseBefore;
  const perRequest = (ms: number): number => (result.requests > 0 ? (ms * 1000) / result.requests : NaN);
  return {
    ...result,
    cpuUsPerRequest: perRequest(cpuMs),
    ...(databaseMs !== undefined && { databaseCpuUsPerRequest: perRequest(databaseMs) }),
  };
}
