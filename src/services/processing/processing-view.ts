import type { ProcessingRow } from '../../adapters/db/schema.js';

/**
 * A processing as the API shows it; `tilesetUrl` is its derivative's tileset
 * (domain/nodes/content-urls.ts), when it made a point cloud that is served; `progress` is its
 * job's last reported progress while it runs.
 */
/** The columns of a processing its body shows. */
export type ProcessingViewRow = Pick<
  ProcessingRow,
  'id' | 'bundle_id' | 'state' | 'cost' | 'failure_reason' | 'derivative_node_id' | 'created_at' | 'started_at' | 'finished_at'
>;

export function processingView(row: ProcessingViewRow, tilesetUrl: string | null = null, progress: number | null = null) {
  return {
    id: row.id,
    bundleId: row.bundle_id,
    state: row.state,
    progress: row.state === 'running' ? progress : null,
    cost: row.cost,
    failureReason: row.failure_reason,
    derivativeId: row.derivative_node_id,
    tilesetUrl,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
