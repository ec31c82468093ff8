import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { UploadState } from '@reality-data-platform/sdk';
import { configDir } from './credentials.js';

/** What `rdp upload` keeps between runs of one command: the bundle it made and the SDK's upload state. */
export interface UploadRun {
  apiUrl: string;
  to: string;
  files: string[];
  name: string;
  bundleId?: string;
  upload?: UploadState;
}

/**
 * The state file of one upload command: named by the platform, the target and the files'
 * absolute paths, so running the same command again finds it (a changed file is then refused
 * by the SDK, not silently started anew).
 */
export function uploadStateFile(apiUrl: string, to: string, files: string[]): string {
  const key = createHash('sha256')
    .update(JSON.stringify([apiUrl, to, files]))
    .digest('hex')
    .slice(0, 32);
  return path.join(configDir(), 'uploads', `${key}.json`);
}

export function readUploadRun(file: string): UploadRun | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as UploadRun;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Mode 0600 (it holds signed upload addresses), written whole and renamed: a crash mid-write keeps the last state. */
export function writeUploadRun(file: string, run: UploadRun): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, JSON.stringify(run), { mode: 0o600 });
  fs.renameSync(temporary, file);
}

export function removeUploadRun(file: string): void {
  fs.rmSync(file, { force: true });
}
