import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { nameOf } from './people-data.js';

const GONE: Record<string, string> = {
  user: 'someone no longer here',
  group: 'a deleted group',
  node: 'a deleted place',
  role: 'a deleted role',
};

/** The name of a user, group, node or role by its id, read (once per session) where it is shown. */
export function NameOf(props: { kind: 'user' | 'group' | 'node' | 'role'; id: string }) {
  const session = useSession();
  const name = useResource(() => nameOf(session, props.kind, props.id), [props.kind, props.id]);
  if (name.loading && name.data === undefined) return <span class="muted">…</span>;
  return <>{name.data ?? GONE[props.kind]}</>;
}
