import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VIEWER_GZIP_BUDGET } from '../../scripts/build-viewer.mjs';
import { type BuiltViewer, buildViewerForTest } from '../support/viewer-pages.js';

/** The viewer's JavaScript stays within its budget (issue 13: 250 KB gzip): a size, never a time. */
describe('the viewer build', () => {
  let built: BuiltViewer;
  beforeAll(async () => {
    built = await buildViewerForTest();
  }, 60_000);
  afterAll(() => built?.remove());

  it('builds viewer.js within 250 KB gzip, and rdp-embed.js small beside it', () => {
    expect(VIEWER_GZIP_BUDGET).toBe(250 * 1024);
    const viewer = built.sizes['viewer.js'];
    const embed = built.sizes['rdp-embed.js'];
    expect(viewer.gzipBytes).toBeGreaterThan(50 * 1024);
    expect(viewer.gzipBytes).toBeLessThanOrEqual(VIEWER_GZIP_BUDGET);
    expect(embed.gzipBytes).toBeLessThanOrEqual(16 * 1024);
  });
});
