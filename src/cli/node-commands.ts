import { type ApiClient, collect, listPlaces, ok, paginate, type Schema } from '@reality-data-platform/sdk';
import type { Command } from 'commander';
import { UsageError } from './cli-errors.js';
import { printResult, printTable } from './output.js';
import { refusal, signedIn } from './signed-in.js';

type Node = Schema<'Node'>;

const KINDS = ['division', 'site', 'folder'] as const;

function stateOf(node: Node): string {
  if (node.trashedAt) return 'trashed';
  if (node.isFailed) return 'failed';
  if (node.isProcessing) return 'processing';
  return '';
}

/** The node and its ancestors up to the site that holds it, nearest first. */
export async function siteOf(api: ApiClient, nodeId: string): Promise<Node | undefined> {
  let id: string | null = nodeId;
  for (let depth = 0; id && depth < 32; depth += 1) {
    const node: Node = await ok(api.GET('/v1/nodes/{nodeId}', { params: { path: { nodeId: id } } }));
    if (node.type === 'site') return node;
    id = node.parentId;
  }
  return undefined;
}

export function addNodeCommands(program: Command): void {
  program
    .command('ls')
    .description('list a node’s children (the organization’s divisions when NODE is omitted)')
    .argument('[node]', 'a node id (default: your organization)')
    .option('--json', 'print the nodes as a JSON array')
    .action(async (nodeArg: string | undefined, options: { json?: boolean }) => {
      const { api, credentials } = signedIn();
      const nodeId = nodeArg ?? credentials.organization.id;
      try {
        const nodes = await collect(
          paginate((page) => api.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId }, query: page } }), {
            pageSize: 500,
          }),
        );
        if (options.json) {
          process.stdout.write(`${JSON.stringify(nodes)}\n`);
          return;
        }
        if (nodes.length === 0) {
          process.stdout.write('(empty)\n');
          return;
        }
        printTable(
          ['ID', 'TYPE', 'NAME', 'STATE', 'UPDATED'],
          nodes.map((node) => [node.id, node.type, node.name, stateOf(node), node.updatedAt]),
        );
      } catch (error) {
        throw refusal(error);
      }
    });

  program
    .command('places')
    .description('list the nodes where you hold a role (your way into the tree: `rdp ls` one of them)')
    .option('--json', 'print the places as a JSON array')
    .action(async (options: { json?: boolean }) => {
      const { api } = signedIn();
      try {
        const places = await listPlaces({ api });
        if (options.json) {
          process.stdout.write(`${JSON.stringify(places)}\n`);
          return;
        }
        if (places.length === 0) {
          process.stdout.write('(none: ask an administrator for a role)\n');
          return;
        }
        printTable(
          ['ID', 'TYPE', 'NAME', 'ROLE'],
          places.map((place) => [place.node.id, place.node.type, place.node.name, place.roleName]),
        );
      } catch (error) {
        throw refusal(error);
      }
    });

  program
    .command('mkdir')
    .description('create a division, site or folder; prints its id')
    .argument('<name>', 'its name')
    .option('--in <node>', 'the parent node (default: your organization)')
    .option('--type <type>', 'division, site or folder (default: division in the organization, folder elsewhere)')
    .option('--address <address>', 'a site’s street address (required for a site)')
    .option('--json', 'print the node as one JSON object')
    .action(async (name: string, options: { in?: string; type?: string; address?: string; json?: boolean }) => {
      const { api, credentials } = signedIn();
      const parentId = options.in ?? credentials.organization.id;
      const type = options.type ?? (parentId === credentials.organization.id ? 'division' : 'folder');
      if (!(KINDS as readonly string[]).includes(type))
        throw new UsageError(`--type must be one of ${KINDS.join(', ')}, got "${type}"`);
      if (options.address !== undefined && type !== 'site') throw new UsageError('--address is for a site (--type site)');
      if (type === 'site' && !options.address) throw new UsageError('a site needs --address (its street address)');
      const params = { path: { parentId } };
      try {
        const node =
          type === 'site'
            ? await ok(api.POST('/v1/nodes/{parentId}/site', { params, body: { name, address: options.address as string } }))
            : await ok(
                api.POST(type === 'division' ? '/v1/nodes/{parentId}/division' : '/v1/nodes/{parentId}/folder', {
                  params,
                  body: { name },
                }),
              );
        if (options.json) printResult(node as unknown as Record<string, unknown>, true);
        else process.stdout.write(`${node.id}\n`);
      } catch (error) {
        throw refusal(error);
      }
    });

  program
    .command('open')
    .description('print the viewer’s address for a site, or for a processed bundle (shown as a layer of its site’s twin)')
    .argument('<node>', 'a site or a processed data bundle')
    .option('--expires <seconds>', 'how long the address works (300 to 86400)', '3600')
    .option('--json', 'print the embed session as one JSON object')
    .action(async (nodeId: string, options: { expires: string; json?: boolean }) => {
      const expiresInSeconds = Number(options.expires);
      if (!Number.isInteger(expiresInSeconds))
        throw new UsageError(`--expires must be a whole number of seconds, got "${options.expires}"`);
      const { api, credentials } = signedIn();
      try {
        const node = await ok(api.GET('/v1/nodes/{nodeId}', { params: { path: { nodeId } } }));
        const site = node.type === 'site' ? node : await siteOf(api, nodeId);
        if (!site) throw new UsageError(`${node.type} ${nodeId} is in no site: open a site, or a processed bundle in one`);
        if (node.type === 'dataBundle') {
          // The processed scan becomes a layer of its site's twin, which is what the viewer shows.
          await ok(
            api.PUT('/v1/twin/{contextId}/layers/{bundleId}', { params: { path: { contextId: site.id, bundleId: node.id } } }),
          );
        }
        const session = await ok(
          api.POST('/v1/embed-sessions', {
            body: { twinId: site.id, allowedOrigins: [new URL(credentials.url).origin], expiresInSeconds },
          }),
        );
        if (options.json) printResult(session as unknown as Record<string, unknown>, true);
        else process.stdout.write(`${session.iframeUrl}\n`);
      } catch (error) {
        throw refusal(error);
      }
    });
}
