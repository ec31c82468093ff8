import { loadConfig } from '../../src/config/config.js';
import { buildApp } from '../../src/http/app.js';
import { openPlatform } from '../../src/platform.js';
import { reportReady } from '../support/child-server.js';

/**
 * The platform (auth and API, no worker) on the port and public address the parent chose
 * (PORT, RDP_PUBLIC_URL): the API hands out signed upload addresses a client then uses as they
 * are, so the server must know where it is reached. bench/cli-upload.ts.
 */
const config = loadConfig({ ...process.env, RDP_ROLES: 'auth,api', RDP_LOG_LEVEL: process.env.RDP_LOG_LEVEL ?? 'warn' });
const platform = await openPlatform(config);
const app = await buildApp(platform);
await app.listen({ host: '127.0.0.1', port: config.port });
reportReady(config.port);
