import type { ChildProcess } from 'node:child_process';

export interface ProcessOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Everything a spawned process printed, once it has ended, with its exit code. */
export function outputOf(child: ChildProcess): Promise<ProcessOutput> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
