import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { cachedNode } from '../nodes/node-cache.js';

/**
 * Whether the person may change the library: write:assetlibrary and edit on the organization
 * node (docs/asset-library.md, "Who may do what"), read from the organization's `permissions`.
 * Undefined while that is read, so no write control flashes up for a reader.
 */
export function useLibraryWriter(): boolean | undefined {
  const session = useSession();
  const organizationId = session.info.organization.id;
  const organization = useResource(async () => {
    if (!session.hasScope('write:assetlibrary')) return false;
    const node = await cachedNode(session, organizationId).catch(() => undefined);
    return node?.permissions?.includes('edit') ?? false;
  }, [organizationId]);
  return organization.data;
}
