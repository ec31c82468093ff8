import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.js';
import { NAME_MAX_LENGTH } from '../nodes/hierarchy.js';
import {
  type BundleState,
  bundleStatus,
  fail,
  isFinished,
  type ProcessingState,
  submit,
  succeed,
  undoSubmission,
} from './bundle-lifecycle.js';
import { derivativeName, derivativeOf } from './derivatives.js';

describe('the bundle lifecycle', () => {
  it('derives the node flags from the state: processing and failed show, the others do not', () => {
    const flags = (['created', 'uploaded', 'processing', 'ready', 'failed'] as BundleState[]).map((state) => {
      const { isProcessing, isFailed } = bundleStatus(state);
      return [state, isProcessing, isFailed];
    });
    expect(flags).toEqual([
      ['created', 0, 0],
      ['uploaded', 0, 0],
      ['processing', 1, 0],
      ['ready', 0, 0],
      ['failed', 0, 1],
    ]);
  });

  it('submits from any state but processing: the processing is queued, the bundle processing', () => {
    for (const state of ['uploaded', 'ready', 'failed', undefined] as const) {
      expect(submit(state)).toEqual({ processing: 'queued', bundle: { state: 'processing', isProcessing: 1, isFailed: 0 } });
    }
    expect(() => submit('processing')).toThrow(ApiError);
    expect(() => submit('processing')).toThrow('The bundle is already being processed');
  });

  it('undoes a submission to the state the bundle had, flags included', () => {
    expect(undoSubmission('failed')).toEqual({ state: 'failed', isProcessing: 0, isFailed: 1 });
    expect(undoSubmission('uploaded')).toEqual({ state: 'uploaded', isProcessing: 0, isFailed: 0 });
  });

  it('ends a processing in succeeded (bundle ready) or failed (bundle failed), after which nothing changes it', () => {
    expect(succeed()).toEqual({ processing: 'succeeded', bundle: { state: 'ready', isProcessing: 0, isFailed: 0 } });
    expect(fail()).toEqual({ processing: 'failed', bundle: { state: 'failed', isProcessing: 0, isFailed: 1 } });
    const finished = (['queued', 'running', 'succeeded', 'failed'] as ProcessingState[]).filter(isFinished);
    expect(finished).toEqual(['succeeded', 'failed']);
  });
});

describe('a derivative', () => {
  it('is a point cloud or a mesh, named after its bundle, the name cut to fit', () => {
    expect(derivativeOf('point-cloud')).toEqual({ nodeKind: 'pointCloud', nameSuffix: ' (point cloud)', format: '3d-tiles' });
    expect(derivativeOf('video')).toEqual({ nodeKind: 'mesh', nameSuffix: ' (mesh)', format: 'reconstruction' });
    expect(derivativeName('Scan', ' (mesh)')).toBe('Scan (mesh)');
    const long = derivativeName('é'.repeat(NAME_MAX_LENGTH), ' (point cloud)');
    expect([...long]).toHaveLength(NAME_MAX_LENGTH);
    expect(long.endsWith(' (point cloud)')).toBe(true);
  });
});
