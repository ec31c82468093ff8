import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';

/** A server under test in a process of its own, so the load generator never shares its event loop. */
export interface ChildServer {
  origin: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface ReadyMessage {
  ready: true;
  port: number;
}

/**
 * Starts a TypeScript server file under tsx and waits for it to report its port over IPC. The
 * file sends { ready: true, port } once it listens (see bench/servers/).
 */
export async function startChildServer(
  file: string,
  env: Record<string, string> = {},
  /** Node's own flags besides tsx's (bench/browse-profile.ts: --cpu-prof). */
  nodeFlags: string[] = [],
): Promise<ChildServer> {
  const child = fork(path.resolve(file), [], {
    execArgv: ['--import', 'tsx', ...nodeFlags],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: ReadyMessage) => resolve(message.port));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before it was ready`)));
    child.once('error', reject);
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** For the server side: tell the parent process the port once listening. */
export function reportReady(port: number): void {
  process.send?.({ ready: true, port } satisfies ReadyMessage);
  process.once('SIGTERM', () => process.exit(0));
  process.once('disconnect', () => process.exit(0));
}
