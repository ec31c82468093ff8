import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NGINX_BINARY, NGINX_TEMPLATE, nginxAvailable, nginxSiteConfig } from '../support/nginx-front.js';

/**
 * The nginx file docs/deploy.md gives operators is the one the scale-out test runs; this checks,
 * on any store and without a deployment, that the addresses are substituted as the test relies on
 * and that nginx accepts the file.
 */
describe('the documented nginx configuration', () => {
  const template = fs.readFileSync(NGINX_TEMPLATE, 'utf8');
  const site = nginxSiteConfig(template, 18080, {
    rdp_auth: ['127.0.0.1:18081'],
    rdp_api_eu: ['127.0.0.1:18082', '127.0.0.1:18083'],
  });

  it('keeps every setting and only puts the given addresses in the upstream blocks', () => {
    expect(site).toContain('listen 127.0.0.1:18080;');
    expect(site).toMatch(/upstream rdp_auth \{\s*server 127\.0\.0\.1:18081 max_fails=2 fail_timeout=5s;\s*keepalive 16;/);
    expect(site).toMatch(
      /upstream rdp_api_eu \{\s*server 127\.0\.0\.1:18082 max_fails=2 fail_timeout=5s;\s*server 127\.0\.0\.1:18083 max_fails=2 fail_timeout=5s;\s*keepalive 64;/,
    );
    expect(site).not.toContain('10.0.0.');
    expect(site).toContain('proxy_next_upstream error timeout http_503;');
    expect(site).toContain('proxy_set_header Connection "";');
    const withoutUpstreams = (text: string) => text.replace(/upstream \w+ \{[^}]*\}/g, '').replace(/listen [^;]+;/, '');
    expect(withoutUpstreams(site)).toBe(withoutUpstreams(template));
  });

  it('is linked from docs/deploy.md', () => {
    const deploy = fs.readFileSync(path.join(path.dirname(NGINX_TEMPLATE), '..', 'deploy.md'), 'utf8');
    expect(deploy).toContain('(deploy/nginx-rdp.conf)');
  });

  it.skipIf(!nginxAvailable)('passes `nginx -t`', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rdp-nginx-t-'));
    try {
      fs.mkdirSync(path.join(dir, 'temp'));
      fs.writeFileSync(path.join(dir, 'rdp.conf'), site);
      fs.writeFileSync(
        path.join(dir, 'nginx.conf'),
        `pid nginx.pid;\nerror_log error.log;\nevents {}\nhttp {\n  client_body_temp_path temp/body;\n  proxy_temp_path temp/proxy;\n  fastcgi_temp_path temp/fastcgi;\n  uwsgi_temp_path temp/uwsgi;\n  scgi_temp_path temp/scgi;\n  include rdp.conf;\n}\n`,
      );
      const check = spawnSync(NGINX_BINARY, ['-t', '-p', dir, '-c', 'nginx.conf', '-e', 'error.log'], { encoding: 'utf8' });
      expect(check.status, check.stderr).toBe(0);
      expect(check.stderr).toContain('syntax is ok');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
