import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { navigate } from '../../router.js';
import { ErrorNotice, Link, PageTitle } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { flash, takeFlash } from '../../ui/flash.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { Breadcrumbs } from './breadcrumbs.js';
import { ChildrenList, useChildren } from './children-list.js';
import { CreateNodeDialog } from './create-dialog.js';
import { MoveDialog } from './move-dialog.js';
import { forgetNodes, loadAncestors, readNode } from './node-cache.js';
import { type CreatableType, isContainer, kindName, type Node, type NodeDetail } from './node-kinds.js';
import { nodeHref } from './node-label.js';
import { nodePanels } from './node-panels.js';
import { nodeRights } from './node-rights.js';
import { isForbidden, PlacesView } from './places.js';
import { RenameDialog } from './rename-dialog.js';
import { SearchForm } from './search-form.js';

type OpenDialog = { kind: 'create'; type: CreatableType } | { kind: 'rename' } | { kind: 'move' } | { kind: 'trash' };

/**
 * A node's screen (the organization's is the Data screen): where it is, what the person may do
 * with it, its contents, and the panels of its type (nodePanels).
 */
export function BrowseView(props: { nodeId?: string }) {
  const session = useSession();
  const nodeId = props.nodeId ?? session.info.organization.id;
  const loaded = useResource(async () => {
    const node = await readNode(session, nodeId);
    return { node, ancestors: await loadAncestors(session, node) };
  }, [nodeId]);
  const [dialog, setDialog] = useState<OpenDialog>();
  const [notice, setNotice] = useState(takeFlash);
  // A new generation of the contents list reads it again from its first page.
  const [contentsGeneration, setContentsGeneration] = useState(0);

  if (!loaded.data) {
    // A person whose roles are all below the organization may not read it: their places are their start (issue 27).
    if (props.nodeId === undefined && isForbidden(loaded.error)) return <PlacesView />;
    return <LoadingOrError error={loaded.error} />;
  }
  const { node, ancestors } = loaded.data;
  const insideSite = ancestors.some((ancestor) => ancestor.type === 'site');
  const rights = nodeRights(session, node, insideSite);
  const panels = nodePanels[node.type] ?? [];

  function refresh() {
    forgetNodes(session);
    loaded.reload();
    setContentsGeneration((generation) => generation + 1);
  }
  function changed(message: string) {
    setDialog(undefined);
    setNotice(message);
    refresh();
  }

  const actions = [
    ...rights.create.map((type) => (
      <button key={`new-${type}`} type="button" onClick={() => setDialog({ kind: 'create', type })}>
        New {kindName(type).toLowerCase()}
      </button>
    )),
    rights.rename && (
      <button key="rename" type="button" class="quiet" onClick={() => setDialog({ kind: 'rename' })}>
        Rename
      </button>
    ),
    rights.move && (
      <button key="move" type="button" class="quiet" onClick={() => setDialog({ kind: 'move' })}>
        Move
      </button>
    ),
    rights.trash && (
      <button key="trash" type="button" class="quiet danger-text" onClick={() => setDialog({ kind: 'trash' })}>
        Move to trash
      </button>
    ),
  ].filter(Boolean);

  return (
    <section class="node-screen">
      <Breadcrumbs ancestors={ancestors} node={node} />
      <PageTitle actions={actions.length > 0 ? actions : undefined}>{node.name}</PageTitle>
      <p class="node-facts">
        {kindName(node.type)}
        {node.address ? ` · ${node.address}` : ''}
      </p>
      {node.type === 'organization' && (
        <p>
          <Link href="/places">Your places and roles</Link>
        </p>
      )}
      {notice && (
        <p class="notice success" role="status">
          {notice}
        </p>
      )}
      <ErrorNotice error={loaded.error} />
      {isContainer(node.type) && (
        <>
          <SearchForm under={node.type === 'organization' ? undefined : node} />
          <Contents key={contentsGeneration} node={node} />
        </>
      )}
      {panels.map((Panel, index) => (
        <Panel key={index} node={node} reload={refresh} />
      ))}
      {dialog?.kind === 'create' && (
        <CreateNodeDialog
          parent={node}
          type={dialog.type}
          onCreated={(created) => changed(`${kindName(created.type)} ${created.name} created.`)}
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog?.kind === 'rename' && (
        <RenameDialog
          node={node}
          onRenamed={(renamed) => changed(`Saved as ${renamed.name}.`)}
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog?.kind === 'move' && (
        <MoveDialog
          node={node}
          onMoved={(_, target) => changed(`Moved to ${target.name}.`)}
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog?.kind === 'trash' && <TrashDialog node={node} parent={ancestors.at(-1)} onClose={() => setDialog(undefined)} />}
    </section>
  );
}

function Contents(props: { node: NodeDetail }) {
  const children = useChildren(props.node.id);
  return <ChildrenList node={props.node} list={children} />;
}

/** Moving a node (and all it holds) to the trash, then back to where it was. */
function TrashDialog(props: { node: Node; parent: Node | undefined; onClose: () => void }) {
  const session = useSession();
  const { node } = props;
  return (
    <ConfirmDialog
      title={`Move ${node.name} to the trash?`}
      confirm="Move to trash"
      danger
      onClose={props.onClose}
      action={async () => {
        await ok(session.api.DELETE('/v1/nodes/{nodeId}', { params: { path: { nodeId: node.id } } }));
        forgetNodes(session);
        flash(`${node.name} is in the trash. It can be restored from the Trash for 30 days.`);
        navigate(props.parent ? nodeHref(props.parent) : '/trash');
      }}
    >
      <p>
        {node.name} and everything in it go to the trash. They can be restored from the Trash for 30 days, then are deleted for
        good.
      </p>
    </ConfirmDialog>
  );
}
