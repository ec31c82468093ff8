import { serveThreadTasks } from '../thread-pool.js';
import { type ComparisonResult, type ComparisonTask, type DecodedNote, runComparisonTask } from './comparison-task.js';

/** A comparison thread: runs one piece of a comparison per task (comparison-task.ts). */
serveThreadTasks<ComparisonTask, ComparisonResult, DecodedNote>((task, note) => runComparisonTask(task, note));
