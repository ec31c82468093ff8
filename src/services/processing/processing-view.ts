import type { ProcessingRow } from '../../adapters/db/schema.js';

/** A processing as the API shows it. */
export function processingView(row: ProcessingRow) {
  return {
    id: row.id,
    bundleId: row.bundle_id,
    state: row.state,
    cost: row.cost,
    failureReason: row.failure_reason,
    derivativeId: row.derivative_node_id,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
