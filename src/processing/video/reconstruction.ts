import { spawn } from 'node:child_process';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { ProcessingError } from '../processing-error.js';
import { lastLines } from './run-tool.js';

/**
 * The reconstruction engine is not ours: RDP_RECONSTRUCTION_COMMAND names a program run as
 * `<command> <input> <outputDir>` (through /bin/sh, so it may carry its own arguments; the
 * two paths are passed as positional parameters, never spliced into the command text).
 */
export async function runReconstruction(command: string | undefined, input: string, outputDir: string): Promise<string[]> {
  if (!command?.trim()) {
    throw new ProcessingError(
      'no-reconstruction-processor',
      'no reconstruction processor is configured (RDP_RECONSTRUCTION_COMMAND)',
    );
  }
  await mkdir(outputDir, { recursive: true });
  await new Promise<void>((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', `${command} "$1" "$2"`, 'rdp-reconstruction', input, outputDir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', (error) =>
      reject(new ProcessingError('reconstruction-failed', `the reconstruction processor: ${error.message}`)),
    );
    child.once('close', (code) => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (code === 0) resolve();
      else
        reject(
          new ProcessingError('reconstruction-failed', `the reconstruction processor exited with ${code}: ${lastLines(text)}`),
        );
    });
  });
  const files = await listFiles(outputDir);
  if (files.length === 0) throw new ProcessingError('reconstruction-failed', 'the reconstruction processor wrote no output');
  return files;
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(path.join(dir, entry.name), relative)));
    else out.push(relative);
  }
  return out.sort();
}
