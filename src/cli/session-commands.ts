import { connect, StaticToken } from '@reality-data-platform/sdk';
import type { Command } from 'commander';
import { COMMAND_LINE_CLIENT } from '../domain/oauth/command-line-client.js';
import { RefusedError } from './cli-errors.js';
import { credentialsFile, readCredentials, removeCredentials, writeCredentials } from './credentials.js';
import { loopbackLogin } from './loopback-login.js';
import { printResult } from './output.js';
import { refusal, signedIn } from './signed-in.js';

/** The platform's address when --url is not given: RDP_URL, the last sign-in's, or the embedded default. */
export function defaultUrl(): string {
  return process.env.RDP_URL || readCredentials()?.url || 'http://127.0.0.1:8080';
}

/** The authorization server of a platform, from its RFC 8414 metadata: proves something answers there. */
async function authorizationServerOf(url: string): Promise<string> {
  const metadataUrl = `${url}/.well-known/oauth-authorization-server/auth`;
  let response: Response;
  try {
    response = await fetch(metadataUrl, { headers: { accept: 'application/json' } });
  } catch (error) {
    throw new RefusedError(
      `no platform answers at ${url} (${(error as Error).cause ?? (error as Error).message}); is the server running? (npm start)`,
    );
  }
  if (!response.ok) throw new RefusedError(`${metadataUrl} answered ${response.status}: is ${url} the platform's address?`);
  return ((await response.json()) as { issuer: string }).issuer;
}

export function addSessionCommands(program: Command): void {
  program
    .command('login')
    .description(
      'sign in through the browser (authorization code with PKCE on a loopback redirect); keeps the tokens in your config directory',
    )
    .option('--url <url>', 'the platform’s address (default: RDP_URL, the last sign-in’s, or http://127.0.0.1:8080)')
    .option('--no-browser', 'only print the sign-in address, do not open a browser')
    .option('--timeout <seconds>', 'how long to wait for the browser', '300')
    .option('--json', 'print one JSON object')
    .action(async (options: { url?: string; browser: boolean; timeout: string; json?: boolean }) => {
      const url = (options.url ?? defaultUrl()).replace(/\/+$/, '');
      const authUrl = await authorizationServerOf(url);
      try {
        const tokens = await loopbackLogin({
          authUrl,
          clientId: COMMAND_LINE_CLIENT.clientId,
          scopes: COMMAND_LINE_CLIENT.scopes,
          openBrowser: options.browser && !process.env.RDP_NO_BROWSER,
          timeoutMs: Number(options.timeout) * 1000,
          say: (line) => process.stderr.write(`${line}\n`),
        });
        const client = await connect({ authUrl, tokens: new StaticToken(tokens.accessToken) });
        const { user, organization } = client.apiInfo;
        writeCredentials({
          url,
          authUrl,
          apiUrl: client.apiUrl,
          clientId: COMMAND_LINE_CLIENT.clientId,
          tokens,
          user: { id: user.id, email: user.email },
          organization,
        });
        printResult(
          { email: user.email, organization: organization.name, organizationId: organization.id, apiUrl: client.apiUrl },
          Boolean(options.json),
        );
      } catch (error) {
        throw refusal(error);
      }
    });

  program
    .command('logout')
    .description('forget the stored tokens')
    .action(() => {
      const file = credentialsFile();
      process.stdout.write(removeCredentials() ? `signed out (removed ${file})\n` : 'not signed in\n');
    });

  program
    .command('whoami')
    .description('who the stored sign-in is: person, organization, scopes, API address')
    .option('--json', 'print one JSON object')
    .action(async (options: { json?: boolean }) => {
      const { credentials, tokens } = signedIn();
      try {
        const client = await connect({ authUrl: credentials.authUrl, tokens, apiUrl: credentials.apiUrl });
        const { user, organization, scopes } = client.apiInfo;
        printResult(
          {
            email: user.email,
            userId: user.id,
            organization: organization.name,
            organizationId: organization.id,
            scopes: scopes.join(' '),
            apiUrl: credentials.apiUrl,
          },
          Boolean(options.json),
        );
      } catch (error) {
        throw refusal(error);
      }
    });
}
