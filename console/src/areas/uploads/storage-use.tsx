import { RdpApiError } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';
import { formatBytes, Progress } from '../../ui/components.js';
import { describeError } from '../../ui/errors.js';
import { useSession } from '../../ui/session-context.js';
import { type Resource, useResource } from '../../ui/use-resource.js';

/** GET /v1/storage: what the organization stores against its quota (null: no quota). */
export interface Storage {
  usedBytes: number;
  reservedBytes: number;
  quotaBytes: number | null;
}

async function readStorage(session: ConsoleSession): Promise<Storage> {
  const response = await session.fetch(`${session.apiUrl}/v1/storage`, { headers: { accept: 'application/json' } });
  const body = await response.json().catch(() => ({ error: `HTTP${response.status}` }));
  if (!response.ok) throw new RdpApiError(response.status, body, response.headers.get('x-request-id') ?? undefined);
  return body as Storage;
}

/** The organization's storage, read again whenever `keys` change (an upload ended). */
export function useStorageUse(keys: unknown[]): Resource<Storage> {
  const session = useSession();
  return useResource(() => readStorage(session), keys);
}

/** The storage in words and as a bar: used of the quota, and what is left. */
export function StorageUse(props: { storage: Resource<Storage> }) {
  const { data, error } = props.storage;
  if (!data) return error ? <p class="notice error">Storage in use: {describeError(error)}</p> : null;
  const used = `${formatBytes(data.usedBytes)} used`;
  if (data.quotaBytes === null) return <p class="storage-use">{`${used}; your organization has no storage quota.`}</p>;
  const left = Math.max(0, data.quotaBytes - data.usedBytes);
  return (
    <div class="storage-use">
      <Progress
        label="Storage in use"
        value={Math.min(data.usedBytes, data.quotaBytes)}
        max={data.quotaBytes}
        text={`${used} of ${formatBytes(data.quotaBytes)}; ${formatBytes(left)} free`}
      />
    </div>
  );
}
