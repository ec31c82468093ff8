import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { authorizeWithForms } from './oauth-flow.js';
import type { TestPlatform } from './platform.js';
import { outputOf, type ProcessOutput } from './process-output.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The command line as a person runs it on their own machine: a config directory of its own
 * (XDG_CONFIG_HOME), the platform's address, and none of the server's store settings.
 */
export class RdpUser {
  readonly configHome = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-config-'));

  constructor(
    private readonly t: TestPlatform,
    /** The platform's address as the person knows it (default: the test server's). */
    private readonly url = t.origin,
  ) {}

  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      PATH: process.env.PATH ?? '',
      HOME: this.configHome,
      XDG_CONFIG_HOME: this.configHome,
      RDP_URL: this.url,
      RDP_NO_BROWSER: '1',
      ...extra,
    };
  }

  get credentialsFile(): string {
    return path.join(this.configHome, 'rdp', 'credentials.json');
  }

  spawn(args: string[], extra: Record<string, string> = {}): ChildProcess {
    return spawn(process.execPath, ['--import', 'tsx', 'src/cli/rdp.ts', ...args], { cwd: ROOT, env: this.env(extra) });
  }

  run(args: string[], extra: Record<string, string> = {}): Promise<ProcessOutput> {
    return outputOf(this.spawn(args, extra));
  }

  /** `rdp … --json` that must succeed: its JSON. */
  async json(args: string[], extra: Record<string, string> = {}): Promise<any> {
    const run = await this.run([...args, '--json'], extra);
    if (run.code !== 0) throw new Error(`rdp ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
    return JSON.parse(run.stdout);
  }

  /**
   * `rdp login`, the person played by forms instead of a browser (the one browser case is in
   * login.test.ts): the consent address the command prints is signed in to and allowed, and
   * the redirect delivered to the command's loopback server.
   */
  async loginWithForms(user: { email: string; password: string }, orgId: string): Promise<ProcessOutput> {
    const child = this.spawn(['login', '--no-browser']);
    const done = outputOf(child);
    const address = (await lineMatching(child.stderr as Readable, /Sign in .*: (\S+)/))[1] as string;
    // The consent page of the address printed: the platform's public one, a proxy's in some tests.
    const redirect = await authorizeWithForms({ ...this.t, authUrl: address.split('/consent?')[0] as string }, address, user, {
      allow: true,
      orgId,
    });
    await fetch(redirect);
    return done;
  }

  remove(): void {
    fs.rmSync(this.configHome, { recursive: true, force: true });
  }
}

/** The first line a stream prints that matches, as it is printed. */
export function lineMatching(stream: Readable, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern} in: ${seen}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      seen += chunk;
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        stream.off('data', onData);
        resolve(match);
      }
    };
    stream.on('data', onData);
  });
}
