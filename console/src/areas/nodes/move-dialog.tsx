import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { Dialog, ErrorNotice, TextField } from '../../ui/components.js';
import { useSubmission } from '../../ui/form-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { isForceable, RefusalNotice } from '../../ui/refusals.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { useChildren } from './children-list.js';
import { cachedNode, loadAncestors } from './node-cache.js';
import { CONTAINER_TYPES, isContainer, kindName, type Node } from './node-kinds.js';
import { NodeIcon } from './node-label.js';

/**
 * Moving a node: the person finds the new place by browsing (from where the node is now) or by
 * searching, then moves it there. A refusal is shown in words; where the spec lets the caller
 * accept it (a change of who can access the node), "Move anyway" sends force: true.
 */
export function MoveDialog(props: { node: Node; onMoved: (node: Node, target: Node) => void; onClose: () => void }) {
  const session = useSession();
  const { node } = props;
  const [placeId, setPlaceId] = useState(node.parentId ?? session.info.organization.id);
  const { busy, error, setError, run } = useSubmission();
  const place = useResource(async () => {
    const found = await cachedNode(session, placeId);
    return { node: found, ancestors: await loadAncestors(session, found) };
  }, [placeId]);
  const target = place.data?.node;

  function goTo(id: string) {
    setError(undefined);
    setPlaceId(id);
  }

  async function move(force: boolean) {
    if (!target) return;
    await run(async () => {
      const moved = await ok(
        session.api.PATCH('/v1/nodes/{nodeId}/move/{newParentId}', {
          params: { path: { nodeId: node.id, newParentId: target.id } },
          body: force ? { force: true } : {},
        }),
      );
      props.onMoved(moved as Node, target);
    });
  }

  return (
    <Dialog title={`Move ${node.name}`} onClose={props.onClose}>
      <p>Choose where it goes: open a place below, or find one by name.</p>
      <PlaceSearch onPick={goTo} />
      {!place.data ? (
        <LoadingOrError error={place.error} />
      ) : (
        <div class="place">
          <nav aria-label="Path of the chosen place" class="breadcrumbs">
            <ol>
              {place.data.ancestors.map((ancestor) => (
                <li key={ancestor.id}>
                  <button type="button" class="link" onClick={() => goTo(ancestor.id)}>
                    {ancestor.name}
                  </button>
                </li>
              ))}
              <li aria-current="location">
                <NodeIcon type={place.data.node.type} />
                {place.data.node.name}
              </li>
            </ol>
          </nav>
          <PlaceChildren placeId={placeId} moving={node} onOpen={goTo} />
        </div>
      )}
      <RefusalNotice error={error} />
      <div class="buttons">
        <button type="button" class="quiet" onClick={props.onClose}>
          Cancel
        </button>
        {isForceable(error) && (
          <button type="button" class="danger" disabled={busy} onClick={() => move(true)}>
            Move anyway
          </button>
        )}
        {target && (
          <button type="button" disabled={busy || target.id === node.parentId} onClick={() => move(false)}>
            {target.id === node.parentId ? `Already in ${target.name}` : `Move to ${target.name}`}
          </button>
        )}
      </div>
    </Dialog>
  );
}

/** The places inside the chosen one, each opened with a button (the node being moved is not a place for itself). */
function PlaceChildren(props: { placeId: string; moving: Node; onOpen: (id: string) => void }) {
  const children = useChildren(props.placeId);
  if (!children.items) return <LoadingOrError error={children.error} />;
  const places = children.items.filter((child) => isContainer(child.type) && child.id !== props.moving.id);
  return (
    <>
      {places.length === 0 ? (
        <p>No places inside this one.</p>
      ) : (
        <ul class="picker" aria-label="Places inside">
          {places.map((child) => (
            <li key={child.id}>
              <button type="button" class="quiet" onClick={() => props.onOpen(child.id)}>
                <NodeIcon type={child.type} />
                Open {child.name} <span class="kind">({kindName(child.type)})</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {children.hasMore && (
        <button type="button" class="quiet" disabled={children.loading} onClick={children.showMore}>
          Show more places
        </button>
      )}
    </>
  );
}

/** Places found by name (GET /v1/nodes/search, containers only). */
function PlaceSearch(props: { onPick: (id: string) => void }) {
  const session = useSession();
  const [text, setText] = useState('');
  const [found, setFound] = useState<Node[] | undefined>();
  const [error, setError] = useState<unknown>();
  async function search(event: Event) {
    event.preventDefault();
    setError(undefined);
    try {
      const query = { searchNameQuery: text, type: CONTAINER_TYPES, limit: 20 };
      setFound((await ok(session.api.GET('/v1/nodes/search', { params: { query } }))) as Node[]);
    } catch (failure) {
      setError(failure);
    }
  }
  return (
    <div class="place-search">
      <search aria-label="Find a place">
        <form onSubmit={search} class="inline-form">
          <TextField label="Find a place by name" type="search" value={text} onValue={setText} required maxLength={255} />
          <button type="submit">Find</button>
        </form>
      </search>
      <ErrorNotice error={error} />
      {found &&
        (found.length === 0 ? (
          <p role="status">No place is called like that.</p>
        ) : (
          <ul class="picker" aria-label="Places found">
            {found.map((place) => (
              <li key={place.id}>
                <button
                  type="button"
                  class="quiet"
                  onClick={() => {
                    setFound(undefined);
                    props.onPick(place.id);
                  }}
                >
                  <NodeIcon type={place.type} />
                  Choose {place.name} <span class="kind">({kindName(place.type)})</span>
                </button>
              </li>
            ))}
          </ul>
        ))}
    </div>
  );
}
