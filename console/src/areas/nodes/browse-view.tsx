import { ok, type Schema } from '@reality-data-platform/sdk/browser';
import { ErrorNotice, Link, Loading, PageTitle } from '../../ui/components.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';

type Node = Schema<'Node'>;

/** A node and its children; without a node, the organization's. */
export function BrowseView(props: { nodeId?: string }) {
  const session = useSession();
  const nodeId = props.nodeId ?? session.info.organization.id;
  const loaded = useResource(async () => {
    const [node, children] = await Promise.all([
      ok(session.api.GET('/v1/nodes/{nodeId}', { params: { path: { nodeId } } })),
      ok(session.api.GET('/v1/nodes/{nodeId}/browse', { params: { path: { nodeId }, query: { limit: 100 } } })),
    ]);
    return { node: node as Node, children: children as Node[] };
  }, [nodeId]);
  if (!loaded.data) return loaded.error ? <ErrorNotice error={loaded.error} /> : <Loading />;
  const { node, children } = loaded.data;
  return (
    <section aria-labelledby="browse-title">
      <PageTitle>{node.name}</PageTitle>
      <ErrorNotice error={loaded.error} />
      {children.length === 0 ? (
        <p>Nothing here yet.</p>
      ) : (
        <table class="nodes">
          <caption class="visually-hidden">Contents of {node.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col">Changed</th>
            </tr>
          </thead>
          <tbody>
            {children.map((child) => (
              <tr key={child.id}>
                <td>
                  <Link href={`/nodes/${child.id}`}>{child.name}</Link>
                </td>
                <td>{child.type}</td>
                <td>{new Date(child.updatedAt).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
