// Builds the viewer's two scripts with esbuild (docs/viewer.md, "Build"): dist/viewer/viewer.js,
// the page's script, and dist/viewer/rdp-embed.js, the integrator's. Everything is bundled:
// nothing is fetched from elsewhere at run time. `node scripts/build-viewer.mjs` prints the sizes.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The budget of the viewer's script, gzip (issue 13); a test fails above it. */
export const VIEWER_GZIP_BUDGET = 250 * 1024;

/** Builds both scripts into `outdir` and answers each file's bytes and gzip bytes. */
export async function buildViewer(outdir = path.join(root, 'dist', 'viewer')) {
  const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
  const common = {
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    platform: 'browser',
    legalComments: 'none',
    write: true,
    logLevel: 'warning',
    define: { __RDP_VIEWER_VERSION__: JSON.stringify(version) },
  };
  await Promise.all([
    build({ ...common, entryPoints: [path.join(root, 'viewer/src/main.ts')], outfile: path.join(outdir, 'viewer.js') }),
    build({
      ...common,
      entryPoints: [path.join(root, 'viewer/src/embed.ts')],
      outfile: path.join(outdir, 'rdp-embed.js'),
      globalName: 'RdpViewer',
    }),
  ]);
  const sizes = {};
  for (const file of ['viewer.js', 'rdp-embed.js']) {
    const bytes = await readFile(path.join(outdir, file));
    sizes[file] = { bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length };
  }
  return { outdir, version, sizes };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { outdir, sizes } = await buildViewer();
  for (const [file, { bytes, gzipBytes }] of Object.entries(sizes)) {
    console.log(
      `${path.relative(root, path.join(outdir, file))}: ${(bytes / 1024).toFixed(1)} KiB, ${(gzipBytes / 1024).toFixed(1)} KiB gzip`,
    );
  }
}
