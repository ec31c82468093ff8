/** Types of scripts/build-console.mjs, for the tests that build the console. */
export declare const CONSOLE_GZIP_BUDGET: number;
export declare function buildConsole(outdir?: string): Promise<{
  outdir: string;
  sizes: Record<string, { bytes: number; gzipBytes: number }>;
}>;
