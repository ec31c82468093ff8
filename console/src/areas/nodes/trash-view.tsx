import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import type { ConsoleSession } from '../../auth/session.js';
import { Link, PageTitle } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { describeRefusal } from '../../ui/refusals.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { useResource } from '../../ui/use-resource.js';
import { cachedNode, forgetNodes } from './node-cache.js';
import type { Node } from './node-kinds.js';
import { nodeHref } from './node-label.js';
import { canWriteTree } from './node-rights.js';
import { NodeTable } from './node-table.js';

/**
 * The trash (GET /v1/trash, newest first): each entry can be restored or deleted for good by
 * people who may delete there. A trashed node cannot be read, so the rights come from where it
 * was: its parent's permissions (a role on the node itself reaches it from there too), else the
 * organization's when the parent is gone as well.
 */
export function TrashView() {
  const session = useSession();
  const trash = usePagedList((page) => session.api.GET('/v1/trash', { params: { query: page } }), []);
  const rights = useResource(() => deletableParents(session, trash.items ?? []), [trash.items?.map((node) => node.id)]);
  const [hardDelete, setHardDelete] = useState<Node>();
  const [outcome, setOutcome] = useState<{ node: Node; restored: boolean; error?: unknown }>();

  async function restore(node: Node) {
    try {
      await ok(session.api.PATCH('/v1/nodes/{nodeId}/restore', { params: { path: { nodeId: node.id } } }));
      forgetNodes(session);
      setOutcome({ node, restored: true });
      trash.reload();
    } catch (error) {
      setOutcome({ node, restored: false, error });
    }
  }

  const mayDelete = (node: Node) => canWriteTree(session) && node.parentId !== null && rights.data?.has(node.parentId) === true;
  return (
    <section class="trash">
      <PageTitle>Trash</PageTitle>
      <p>Items stay in the trash for 30 days, then are deleted for good.</p>
      {outcome && <Outcome {...outcome} />}
      {!trash.items ? (
        <LoadingOrError error={trash.error} />
      ) : trash.items.length === 0 ? (
        <p>The trash is empty.</p>
      ) : (
        <NodeTable
          caption="Items in the trash"
          nodes={trash.items}
          linked={false}
          when={{ label: 'Trashed', of: (node) => node.trashedAt }}
          extra={
            trash.items.some(mayDelete)
              ? {
                  label: 'Actions',
                  cell: (node) =>
                    mayDelete(node) && (
                      <>
                        <button type="button" class="quiet" onClick={() => restore(node)} aria-label={`Restore ${node.name}`}>
                          Restore
                        </button>
                        <button
                          type="button"
                          class="danger"
                          onClick={() => setHardDelete(node)}
                          aria-label={`Delete for good: ${node.name}`}
                        >
                          Delete for good
                        </button>
                      </>
                    ),
                }
              : undefined
          }
        />
      )}
      {trash.items && <ShowMore list={trash} what="items" />}
      {hardDelete && (
        <ConfirmDialog
          title={`Delete ${hardDelete.name} for good?`}
          confirm={`Delete ${hardDelete.name} for good`}
          danger
          onClose={() => setHardDelete(undefined)}
          action={async () => {
            await ok(session.api.DELETE('/v1/nodes/{nodeId}/hard', { params: { path: { nodeId: hardDelete.id } } }));
            setHardDelete(undefined);
            setOutcome({ node: hardDelete, restored: false });
            trash.reload();
          }}
        >
          <p>{hardDelete.name} and everything in it are deleted now, with their files. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function Outcome(props: { node: Node; restored: boolean; error?: unknown }) {
  if (props.error) {
    return (
      <p class="notice error" role="alert">
        {props.node.name} was not restored: {describeRefusal(props.error)}
      </p>
    );
  }
  return (
    <p class="notice success" role="status">
      {props.restored ? (
        <>
          {props.node.name} is restored. <Link href={nodeHref(props.node)}>Open {props.node.name}</Link>
        </>
      ) : (
        `${props.node.name} is deleted for good.`
      )}
    </p>
  );
}

/** The parents (of these trash entries) on which the person holds delete: theirs, else the organization's. */
async function deletableParents(session: ConsoleSession, nodes: Node[]): Promise<Set<string>> {
  const organization = session.info.organization.id;
  const permissionsOf = async (id: string) => (await cachedNode(session, id).catch(() => undefined))?.permissions;
  const parents = [...new Set(nodes.map((node) => node.parentId).filter((id): id is string => id !== null))];
  const deletable = new Set<string>();
  await Promise.all(
    parents.map(async (parentId) => {
      const permissions = (await permissionsOf(parentId)) ?? (await permissionsOf(organization));
      if (permissions?.includes('delete')) deletable.add(parentId);
    }),
  );
  return deletable;
}
