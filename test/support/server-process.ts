import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A server started as its own process from src/main.ts (through tsx: no build needed). */
export interface ServerProcess {
  child: ChildProcess;
  origin: string;
  /** What it printed so far, stdout and stderr. */
  output(): string;
  /** Settles with the exit status (null when a signal ended it). */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it lingers. */
  stop(): Promise<void>;
}

/**
 * How the server is run: by default from source through tsx in the project; `{ cwd, args:
 * ['dist/main.js'] }` runs a compiled copy as `npm start` does (test/support/fresh-build.ts).
 */
export interface Launch {
  cwd: string;
  args: string[];
}

const FROM_SOURCE: Launch = { cwd: ROOT, args: ['--import', 'tsx', 'src/main.ts'] };

/** Spawns the server with exactly `env` (and PATH). `exited` settles whether or not it ever listens. */
export function spawnServer(env: Record<string, string>, launch: Launch = FROM_SOURCE): Omit<ServerProcess, 'origin'> {
  const child = spawn(process.execPath, launch.args, {
    cwd: launch.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Spawns the server on `port` and waits until GET /health answers 200. */
export async function startServer(
  port: number,
  env: Record<string, string>,
  waitMs = 60_000,
  launch: Launch = FROM_SOURCE,
): Promise<ServerProcess> {
  const server = spawnServer({ PORT: String(port), ...env }, launch);
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline && server.child.exitCode === null) {
    const response = await fetch(`${origin}/health`).catch(() => undefined);
    if (response?.status === 200) return { ...server, origin };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await server.stop();
  throw new Error(`the server never answered GET /health:\n${server.output()}`);
}
