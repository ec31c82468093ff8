import { serveThreadTasks } from '../../processing/thread-pool.js';
import { type CopyRequest, type CopyResult, copyHashed } from './hashed-copy.js';

/** A copy thread of a backup or a restore: one file copied and hashed per task (hashed-copy.ts). */
const buffer = Buffer.allocUnsafe(1024 * 1024);
serveThreadTasks<CopyRequest, CopyResult>(async (request) => ({ result: copyHashed(request, buffer) }));
