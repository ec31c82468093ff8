import { useState } from 'preact/hooks';
import { navigate } from '../../router.js';
import { RefusalNotice } from '../../ui/refusals.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { loadAncestors } from '../nodes/node-cache.js';
import type { NodeDetail } from '../nodes/node-kinds.js';
import { canWriteTree } from '../nodes/node-rights.js';
import { twinHref } from './twin-api.js';
import { addLayer, siteAbove } from './twin-layers.js';

/**
 * On a processed bundle inside a site, for a person who may edit that site: makes the bundle a
 * layer of the site's twin and opens the twin. A bundle already a layer is just opened there (the
 * platform answers 200 and writes nothing).
 */
export function ShowInTwin(props: { bundle: NodeDetail }) {
  const session = useSession();
  const { bundle } = props;
  const site = useResource(async () => siteAbove(await loadAncestors(session, bundle)), [bundle.id, bundle.parentId]);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const target = site.data;
  if (!target || !canWriteTree(session) || !target.permissions?.includes('edit')) return null;

  async function show(siteId: string) {
    setBusy(true);
    setError(undefined);
    try {
      await addLayer(session, siteId, bundle.id);
      navigate(twinHref(siteId));
    } catch (refusal) {
      setError(refusal);
      setBusy(false);
    }
  }
  return (
    <div class="show-in-twin">
      <button type="button" disabled={busy} onClick={() => show(target.id)}>
        Show in the twin of {target.name}
      </button>
      <RefusalNotice error={error} />
    </div>
  );
}
