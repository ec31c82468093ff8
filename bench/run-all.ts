import { runBackup } from './backup.js';
import { runBrowse } from './browse.js';
import { runBundle } from './bundle.js';
import { runBusinessObjects } from './business-objects.js';
import { runCliUpload } from './cli-upload.js';
import { runComparisonTiles } from './comparison-tiles.js';
import { runComparisons } from './comparisons.js';
import { runDownload } from './download.js';
import { runDraftPublish } from './draft-publish.js';
import { runJobs } from './jobs.js';
import { runLibraryLists } from './library-lists.js';
import { runLists } from './lists.js';
import { runMeasurementLists } from './measurement-lists.js';
import { runMeshTiles } from './mesh-tiles.js';
import { runModelAssets } from './model-assets.js';
import { runModelPreview } from './model-preview.js';
import { runMultipartComplete } from './multipart-complete.js';
import { runOperationsOverhead } from './operations-overhead.js';
import { runPermissionCheck } from './permission-check.js';
import { runPointCloud } from './point-cloud.js';
import { runPointCloudScaleIfAsked } from './point-cloud-scale.js';
import { runRateLimit } from './rate-limit.js';
import { runScale } from './scale.js';
import { runScaleOut } from './scale-out.js';
import { runSdkUpload } from './sdk-upload.js';
import { runStartup } from './startup.js';
import { log, quick, runMain, type SummaryRow } from './support/report.js';
import { runTileAttributes } from './tile-attributes.js';
import { runTiles } from './tiles.js';
import { runToken } from './token.js';
import { runTwinLists } from './twin-lists.js';
import { runUpload } from './upload.js';
import { runViewer } from './viewer.js';
import { runWebhooks } from './webhooks.js';

/**
 * Every benchmark in turn, then one table of ratios. `npm run bench -- --quick` (or
 * RDP_BENCH_QUICK=1) makes short runs on smaller stores; RDP_BENCH_DATABASE_URL adds PostgreSQL
 * to every benchmark that touches a store; RDP_BENCH_SCALE_POINTS=50M,200M adds the long
 * point-cloud scale bench (bench/point-cloud-scale.ts). The exit status reports errors only, never a slow number.
 */
export async function runAll(): Promise<SummaryRow[]> {
  log(`Reality Data Platform benchmarks${quick ? ' (quick)' : ''}: ratios against baselines measured in the same run`);
  const rows: SummaryRow[] = [];
  for (const bench of [
    runBrowse,
    runOperationsOverhead,
    runPermissionCheck,
    runRateLimit,
    runToken,
    runScale,
    runLists,
    runBusinessObjects,
    runScaleOut,
    runStartup,
    runUpload,
    runSdkUpload,
    runCliUpload,
    runMultipartComplete,
    runDownload,
    runBackup,
    runBundle,
    runJobs,
    runPointCloud,
    runPointCloudScaleIfAsked,
    runModelPreview,
    runMeshTiles,
    runComparisons,
    runTwinLists,
    runMeasurementLists,
    runModelAssets,
    runLibraryLists,
    runTiles,
    runComparisonTiles,
    runTileAttributes,
    runDraftPublish,
    runViewer,
    runWebhooks,
  ]) {
    rows.push(...(await bench()));
    log('');
  }
  return rows;
}

runMain(import.meta.url, runAll);
