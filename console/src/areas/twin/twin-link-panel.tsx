import { Link } from '../../ui/components.js';
import type { NodePanelProps } from '../nodes/node-panels.js';
import { comparisonsHref } from './comparison-api.js';
import { twinHref } from './twin-api.js';

/** On a site's screen: the way to its twin. */
export function TwinLinkPanel(props: NodePanelProps) {
  return (
    <section class="twin-link" aria-labelledby="twin-link-heading">
      <h2 id="twin-link-heading">Digital twin</h2>
      <p>The site's scans in 3D with its points of interest, zones and their metadata, and the comparisons of its scans.</p>
      <p class="actions">
        <Link href={twinHref(props.node.id)} class="button">
          Open twin
        </Link>{' '}
        <Link href={comparisonsHref(props.node.id)} class="button">
          Comparisons
        </Link>
      </p>
    </section>
  );
}
