import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TokenSet } from '@reality-data-platform/sdk';

/** What `rdp login` keeps: where the platform is, the client it signed in with, and the tokens. */
export interface Credentials {
  /** The platform's public address, e.g. http://127.0.0.1:8080. */
  url: string;
  /** Its authorization server ({url}/auth, the metadata's issuer). */
  authUrl: string;
  /** The regional API of the organization signed in to. */
  apiUrl: string;
  clientId: string;
  tokens: TokenSet;
  user: { id: string; email: string };
  organization: { id: string; name: string };
}

/** $XDG_CONFIG_HOME/rdp, or ~/.config/rdp. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'rdp');
}

export function credentialsFile(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(configDir(env), 'credentials.json');
}

export function readCredentials(): Credentials | undefined {
  try {
    return JSON.parse(fs.readFileSync(credentialsFile(), 'utf8')) as Credentials;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Written to a temporary file of mode 0600 and renamed over the old one: the tokens are never
 * readable by others, and a crash mid-write never leaves half a file (the refresh token rotates,
 * so losing the new one would mean signing in again).
 */
export function writeCredentials(credentials: Credentials): void {
  const file = credentialsFile();
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temporary, file);
}

/** Returns whether there was anything to forget. */
export function removeCredentials(): boolean {
  try {
    fs.unlinkSync(credentialsFile());
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
