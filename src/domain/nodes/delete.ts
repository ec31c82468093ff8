import type { ErrorCode } from '../errors.js';
import type { NodeKind } from './hierarchy.js';

export interface DeleteFacts {
  kind: NodeKind;
  /** Active derivative outputs of nodes in the subtree that lie outside it. */
  derivatives: { id: string; name: string }[];
  /** Some node of the subtree is processing, or failed. */
  isProcessing: boolean;
  isFailed: boolean;
  /** A data bundle of the subtree has active dependants outside it. */
  hasBundleDependants: boolean;
}

export interface Refusal {
  code: ErrorCode;
  message?: string;
  extra?: Record<string, unknown>;
}

/** The first rule a soft delete breaks, or null when the subtree may go to the trash. */
export function checkSoftDelete(facts: DeleteFacts): Refusal | null {
  if (facts.kind === 'organization') {
    return { code: 'DeleteNodeFailed', message: 'The organization node cannot be deleted' };
  }
  if (facts.derivatives.length > 0) {
    return { code: 'NodeHasDerivatives', extra: { derivatives: facts.derivatives } };
  }
  if (facts.isProcessing || facts.isFailed) {
    return {
      code: 'NodeNotInDeletableState',
      extra: { isProcessing: facts.isProcessing, isFailed: facts.isFailed },
    };
  }
  if (facts.hasBundleDependants) return { code: 'NodeHasBundleDependants' };
  return null;
}

/**
 * Restoring must fit in the quota: bytes in use plus the subtree's bytes. A null quota is
 * unlimited, and a restore that adds no bytes never exceeds it (the quota may have been lowered
 * below what is in use; empty folders still come back).
 */
export function fitsQuota(quota: number | null, usedBytes: number, addedBytes: number): boolean {
  return quota === null || addedBytes === 0 || usedBytes + addedBytes <= quota;
}

export const DAY_MS = 86_400_000;

export function trashCutoff(now: Date, retentionDays: number): string {
  return new Date(now.getTime() - retentionDays * DAY_MS).toISOString();
}
