/** Types of scripts/build-viewer.mjs, for the tests and benchmarks that build the viewer. */
export declare const VIEWER_GZIP_BUDGET: number;
export declare function buildViewer(outdir?: string): Promise<{
  outdir: string;
  version: string;
  sizes: Record<'viewer.js' | 'rdp-embed.js', { bytes: number; gzipBytes: number }>;
}>;
