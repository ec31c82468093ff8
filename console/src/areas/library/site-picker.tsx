import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { TextField } from '../../ui/components.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { useResource } from '../../ui/use-resource.js';
import { useChildren } from '../nodes/children-list.js';
import { cachedNode } from '../nodes/node-cache.js';
import { isContainer, type Node } from '../nodes/node-kinds.js';
import { NodeIcon } from '../nodes/node-label.js';

/**
 * Choosing a site (whose twin a model goes in): by name, or by browsing from the organization
 * down; containers open, sites are chosen.
 */
export function SitePicker(props: { onPick: (site: Node) => void }) {
  const session = useSession();
  const [placeId, setPlaceId] = useState(session.info.organization.id);
  const [text, setText] = useState('');
  const [searched, setSearched] = useState<string>();
  const found = useResource(async () => {
    if (!searched) return undefined;
    const nodes = await ok(session.api.GET('/v1/nodes/search', { params: { query: { searchNameQuery: searched, limit: 50 } } }));
    return (nodes as Node[]).filter((node) => node.type === 'site');
  }, [searched]);
  const place = useResource(() => cachedNode(session, placeId), [placeId]);

  return (
    <div class="site-picker">
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          setSearched(text.trim() || undefined);
        }}
      >
        <TextField label="Find a site by name" type="search" value={text} onValue={setText} />
        <button type="submit" class="quiet">
          Find
        </button>
      </form>
      {searched &&
        (found.data ? (
          found.data.length === 0 ? (
            <p role="status">No site is named like “{searched}”.</p>
          ) : (
            <ul class="picker" aria-label={`Sites found for ${searched}`}>
              {found.data.map((site) => (
                <li key={site.id}>
                  <button type="button" class="quiet" onClick={() => props.onPick(site)}>
                    <NodeIcon type={site.type} />
                    Choose {site.name}
                  </button>
                </li>
              ))}
            </ul>
          )
        ) : (
          <LoadingOrError error={found.error} label="Searching…" />
        ))}
      <div class="place">
        <p>
          Browsing {place.data?.name ?? '…'}
          {place.data?.parentId && (
            <>
              {' '}
              <button type="button" class="link" onClick={() => setPlaceId(place.data?.parentId as string)}>
                Up one level
              </button>
            </>
          )}
        </p>
        <PlaceChildren placeId={placeId} onOpen={setPlaceId} onPick={props.onPick} />
      </div>
    </div>
  );
}

function PlaceChildren(props: { placeId: string; onOpen: (id: string) => void; onPick: (site: Node) => void }) {
  const children = useChildren(props.placeId);
  if (!children.items) return <LoadingOrError error={children.error} />;
  const shown = children.items.filter((node) => node.type === 'site' || isContainer(node.type));
  if (shown.length === 0) return <p>No site or folder here.</p>;
  return (
    <>
      <ul class="picker" aria-label="Places to browse">
        {shown.map((node) => (
          <li key={node.id}>
            <button
              type="button"
              class="quiet"
              onClick={() => (node.type === 'site' ? props.onPick(node) : props.onOpen(node.id))}
            >
              <NodeIcon type={node.type} />
              {node.type === 'site' ? `Choose ${node.name}` : `Open ${node.name}`}
            </button>
          </li>
        ))}
      </ul>
      <ShowMore list={children} what="items" />
    </>
  );
}
