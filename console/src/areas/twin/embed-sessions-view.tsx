import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { Link, PageTitle } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { Breadcrumbs } from '../nodes/breadcrumbs.js';
import { loadAncestors, readNode } from '../nodes/node-cache.js';
import { canWriteTree } from '../nodes/node-rights.js';
import { type EmbedSession, listEmbedSessions } from './embed-session-api.js';
import { EmbedSessionDialog } from './embed-session-dialog.js';
import { twinHref } from './twin-api.js';
import './twin.css';

const TARGET_WORDS: Record<EmbedSession['target']['type'], string> = {
  twin: 'Twin',
  twinDraft: 'Draft',
  project: 'Planning project',
  layout: 'Planning layout',
};

/**
 * A site's embed sessions (/twins/{siteId}/embed-sessions, docs/console.md "Twin"): the open ones
 * the API lists, a new one made with its origins and lifetime (its HTML copied then), one revoked
 * after a question. Its viewers stop within a second (docs/embedding.md).
 */
export function EmbedSessionsView(props: { siteId: string }) {
  const session = useSession();
  const { siteId } = props;
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<EmbedSession>();
  const [notice, setNotice] = useState<string>();
  const site = useResource(async () => {
    const node = await readNode(session, siteId);
    return { node, ancestors: await loadAncestors(session, node) };
  }, [siteId]);
  const sessions = useResource(() => listEmbedSessions(session, siteId), [siteId]);

  if (!site.data) return <LoadingOrError error={site.error} />;
  const { node, ancestors } = site.data;
  const mayManage = canWriteTree(session);

  async function revoke(revoked: EmbedSession) {
    await ok(session.api.DELETE('/v1/embed-sessions/{embedSessionId}', { params: { path: { embedSessionId: revoked.id } } }));
    setRevoking(undefined);
    setNotice(`The session for ${revoked.allowedOrigins.join(', ')} is revoked: its viewers stop within a second.`);
    sessions.reload();
  }

  return (
    <section class="embed-sessions">
      <Breadcrumbs ancestors={[...ancestors, node]} node={{ ...node, name: 'Embed sessions', type: 'twin' }} />
      <PageTitle
        actions={
          mayManage && (
            <button type="button" onClick={() => setCreating(true)}>
              New embed session
            </button>
          )
        }
      >
        {`Embed sessions of ${node.name}`}
      </PageTitle>
      {notice && (
        <p class="notice success" role="status">
          {notice}
        </p>
      )}
      <p>
        An embed session lets another web application show the <Link href={twinHref(siteId)}>twin</Link> read-only in a frame:
        only pages of its allowed origins may show it, until it ends or you revoke it.
      </p>
      {!sessions.data ? (
        <LoadingOrError error={sessions.error} />
      ) : sessions.data.length === 0 ? (
        <p>No open embed session.</p>
      ) : (
        <table class="embed-session-list">
          <caption class="visually-hidden">Open embed sessions of {node.name}</caption>
          <thead>
            <tr>
              <th scope="col">Allowed origins</th>
              <th scope="col">Shows</th>
              <th scope="col">Ends</th>
              <th scope="col">Made</th>
              {mayManage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {sessions.data.map((item) => (
              <tr key={item.id}>
                <td>{item.allowedOrigins.join(', ')}</td>
                <td>{TARGET_WORDS[item.target.type]}</td>
                <td>
                  <time dateTime={item.expiresAt}>{new Date(item.expiresAt).toLocaleString()}</time>
                </td>
                <td>
                  <time dateTime={item.createdAt}>{new Date(item.createdAt).toLocaleString()}</time>
                </td>
                {mayManage && (
                  <td>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Revoke the session for ${item.allowedOrigins.join(', ')}`}
                      onClick={() => setRevoking(item)}
                    >
                      Revoke
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {creating && (
        <EmbedSessionDialog
          siteId={siteId}
          onCreated={() => {
            setNotice(undefined);
            sessions.reload();
          }}
          onClose={() => setCreating(false)}
        />
      )}
      {revoking && (
        <ConfirmDialog
          title="Revoke the embed session?"
          confirm="Revoke"
          danger
          action={() => revoke(revoking)}
          onClose={() => setRevoking(undefined)}
        >
          <p>
            Pages of {revoking.allowedOrigins.join(', ')} stop showing the twin within a second. A revoked session cannot be used
            again.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
