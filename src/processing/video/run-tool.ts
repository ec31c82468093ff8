import { spawn } from 'node:child_process';
import { ProcessingError } from '../processing-error.js';

export interface ToolOutput {
  stdout: string;
  stderr: string;
}

/** Runs a program without a shell; a missing program or a failure becomes a ProcessingError. */
export function runTool(program: string, args: string[], options: { cwd?: string } = {}): Promise<ToolOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        new ProcessingError(
          'tool-failed',
          error.code === 'ENOENT' ? `${program} is not installed (Debian package ffmpeg)` : `${program}: ${error.message}`,
        ),
      );
    });
    child.once('close', (code) => {
      const output = { stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') };
      if (code === 0) resolve(output);
      else reject(new ToolFailure(program, code, output.stderr));
    });
  });
}

export class ToolFailure extends ProcessingError {
  constructor(
    readonly program: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super('tool-failed', `${program} exited with ${exitCode}: ${lastLines(stderr)}`);
  }
}

export function lastLines(text: string, lines = 5): string {
  return text.trim().split('\n').slice(-lines).join(' | ').slice(0, 1000);
}
