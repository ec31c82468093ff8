import { useEffect, useState } from 'preact/hooks';
import { useSession } from '../../ui/session-context.js';
import type { LibraryModel } from './library-types.js';

/**
 * A model's thumbnail. The route wants the bearer token, which an <img> cannot send: the PNG is
 * fetched with the session's fetch and shown as a blob: address (the console's CSP allows
 * img-src blob:), released when the thumbnail goes.
 */
export function Thumbnail(props: { model: LibraryModel; size?: 'small' | 'large' }) {
  const session = useSession();
  const { model } = props;
  const [source, setSource] = useState<string>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    setSource(undefined);
    setFailed(false);
    if (!model.thumbnailUrl) return;
    let address: string | undefined;
    let current = true;
    session
      .fetch(model.thumbnailUrl)
      .then(async (response) => {
        if (!response.ok) throw new Error(`thumbnail answered ${response.status}`);
        const blob = await response.blob();
        if (!current) return;
        address = URL.createObjectURL(blob);
        setSource(address);
      })
      .catch(() => current && setFailed(true));
    return () => {
      current = false;
      if (address) URL.revokeObjectURL(address);
    };
  }, [model.thumbnailUrl]);
  const className = `thumbnail ${props.size ?? 'small'}`;
  if (source) return <img class={className} src={source} alt={`Thumbnail of ${model.name}`} width={256} height={256} />;
  return (
    <span class={`${className} placeholder`}>
      {failed ? 'Thumbnail not available' : model.thumbnailUrl ? 'Loading thumbnail…' : 'No thumbnail'}
    </span>
  );
}
