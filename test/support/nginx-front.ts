import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * nginx in front of a deployment, configured by the file docs/deploy.md tells operators to use
 * (docs/deploy/nginx-rdp.conf) with only the addresses changed, so the documented configuration
 * is the tested one. Runs as a child process (not a daemon) with everything it writes in a
 * temporary directory.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const NGINX_TEMPLATE = path.join(ROOT, 'docs', 'deploy', 'nginx-rdp.conf');
export const NGINX_BINARY = process.env.RDP_TEST_NGINX ?? '/usr/sbin/nginx';
export const nginxAvailable = fs.existsSync(NGINX_BINARY);

export interface NginxFront {
  origin: string;
  pid: number | undefined;
  /** The error log so far, for failure messages. */
  errors(): string;
  /**
   * Writes the site file with these upstreams and reloads nginx (SIGHUP), resolving once the
   * workers of the old configuration have finished their requests and exited: from then on no
   * request goes where the old configuration sent it. A server address may carry parameters
   * ("127.0.0.1:8081 down").
   */
  reconfigure(upstreams: Record<string, string[]>): Promise<void>;
  stop(): Promise<void>;
}

/** The worker processes of an nginx master (Linux: the kernel lists a process's children). */
function workersOf(masterPid: number): number[] {
  try {
    return fs
      .readFileSync(`/proc/${masterPid}/task/${masterPid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * The documented configuration with these addresses: `upstreams` maps an upstream block's name
 * (rdp_auth, rdp_api_eu) to the host:port of its servers; each server keeps the parameters the
 * file gives its first server (max_fails, fail_timeout). Blocks not named keep their servers.
 */
export function nginxSiteConfig(template: string, listenPort: number, upstreams: Record<string, string[]>): string {
  const withUpstreams = template.replace(/upstream (\w+) \{([^}]*)\}/g, (block, name: string, body: string) => {
    const servers = upstreams[name];
    if (!servers) return block;
    const first = /^(\s*)server \S+([^;\n]*);/m.exec(body);
    if (!first) throw new Error(`upstream ${name} has no server line`);
    const [, indent, parameters] = first;
    const lines = servers.map((address) => `${indent}server ${address}${parameters};`).join('');
    const rest = body.replace(/^\s*server \S+[^;\n]*;\n?/gm, '');
    return `upstream ${name} {${lines}\n${rest}}`;
  });
  const listen = /^(\s*)listen 80;/m;
  if (!listen.test(withUpstreams)) throw new Error('the nginx template has no "listen 80;" line');
  return withUpstreams.replace(listen, `$1listen 127.0.0.1:${listenPort};`);
}

/** The main file around the site file: what Debian's /etc/nginx/nginx.conf provides, inside a temporary directory. */
function mainConfig(): string {
  return [
    'worker_processes 1;',
    'pid nginx.pid;',
    'error_log error.log warn;',
    'events { worker_connections 1024; }',
    'http {',
    '  access_log off;',
    '  client_body_temp_path temp/body;',
    '  proxy_temp_path temp/proxy;',
    '  fastcgi_temp_path temp/fastcgi;',
    '  uwsgi_temp_path temp/uwsgi;',
    '  scgi_temp_path temp/scgi;',
    '  include rdp.conf;',
    '}',
    '',
  ].join('\n');
}

export async function startNginx(listenPort: number, upstreams: Record<string, string[]>): Promise<NginxFront> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-nginx-'));
  fs.mkdirSync(path.join(dir, 'temp'));
  fs.writeFileSync(path.join(dir, 'nginx.conf'), mainConfig());
  fs.writeFileSync(path.join(dir, 'rdp.conf'), nginxSiteConfig(fs.readFileSync(NGINX_TEMPLATE, 'utf8'), listenPort, upstreams));
  const errorLog = path.join(dir, 'error.log');
  const errors = () => (fs.existsSync(errorLog) ? fs.readFileSync(errorLog, 'utf8') : '');
  let stderr = '';
  const child: ChildProcess = spawn(NGINX_BINARY, ['-p', dir, '-c', 'nginx.conf', '-e', 'error.log', '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const origin = `http://127.0.0.1:${listenPort}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited with ${child.exitCode}: ${stderr}${errors()}`);
    const up = await fetch(`${origin}/nginx-probe`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`nginx did not listen within 10 s: ${stderr}${errors()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const siteFile = path.join(dir, 'rdp.conf');
  return {
    origin,
    pid: child.pid,
    errors: () => `${stderr}${errors()}`,
    async reconfigure(changed) {
      const masterPid = child.pid as number;
      const before = workersOf(masterPid);
      fs.writeFileSync(siteFile, nginxSiteConfig(fs.readFileSync(NGINX_TEMPLATE, 'utf8'), listenPort, changed));
      child.kill('SIGHUP');
      const deadline = Date.now() + 30_000;
      for (;;) {
        const now = workersOf(masterPid);
        if (now.length > 0 && !now.some((pid) => before.includes(pid))) return;
        if (child.exitCode !== null) throw new Error(`nginx exited on reload: ${stderr}${errors()}`);
        if (Date.now() > deadline) throw new Error(`nginx's old workers still run 30 s after the reload: ${errors()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // SIGQUIT is nginx's graceful stop; SIGTERM its fast one: a test wants it gone.
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
