import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '../ports/clock.js';
import type { JobStore, RegisteredWorker } from '../ports/job-queue.js';

/** Work folders are named after their worker, so that a folder's owner can be looked up. */
const FOLDER_PREFIX = 'rdp-worker-';
const FOLDER = /^rdp-worker-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;
/** Expired registrations are kept this long: until then, a dead worker's folder can still be told apart. */
const PRUNE_AFTER_MS = 7 * 24 * 3600 * 1000;
/** The workers running in this process: a registration with this pid and another id is of an earlier process. */
const workersOfThisProcess = new Set<string>();

export interface WorkerPresenceOptions {
  store: JobStore;
  clock: Clock;
  slots: number;
  /** How often the registration is refreshed; it stays alive for three of these. */
  intervalMs: number;
  /**
   * A registration expired this long ago belongs to a dead worker: its jobs have been failed by
   * the watchdog (this is the job heartbeat timeout), so its folder may go.
   */
  deadAfterMs: number;
  /** Where the work folders of this machine's workers are (os.tmpdir(): TMPDIR). */
  root: string;
  log?: { info(object: object, message: string): void; warn(object: object, message: string): void };
}

/** Whether a process of this machine with this pid exists (EPERM: it does, under another user). */
function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A worker's registration in the job store (its slots are the deployment's capacity while it is
 * alive) and its work folder on this machine. A periodic tick refreshes the registration, removes
 * long-expired ones, and removes the work folders of this machine's dead workers: a worker killed
 * mid-job leaves its folder (the input and output of a processing) behind.
 */
export class WorkerPresence {
  readonly id = randomUUID();
  readonly folder: string;
  private readonly startedAt: string;
  private slots: number;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;

  constructor(private readonly options: WorkerPresenceOptions) {
    this.folder = path.join(options.root, `${FOLDER_PREFIX}${this.id}`);
    this.startedAt = options.clock.now().toISOString();
    this.slots = options.slots;
  }

  private get aliveForMs(): number {
    return this.options.intervalMs * 3;
  }

  /** Registers, before any folder is made: a sweep never sees a folder of an unregistered worker. */
  async start(): Promise<void> {
    workersOfThisProcess.add(this.id);
    await this.register();
    this.timer = setInterval(() => void this.tick(), this.options.intervalMs);
  }

  /** At stop: no more slots to offer, but still alive (and its folder kept) while its jobs finish. */
  async drain(): Promise<void> {
    this.slots = 0;
    await this.ticking; // a refresh under way must not write the old slots after this one
    await this.register();
  }

  /**
   * Unregisters and removes the worker's folder. While a handler that ignored its signal may still
   * use the folder, both stay: the registration (no slots) expires, and once this process has
   * exited, a sweep of another worker removes the folder.
   */
  async stop(handlersEnded: boolean): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.ticking;
    if (!handlersEnded) return;
    workersOfThisProcess.delete(this.id);
    await fs.rm(this.folder, { recursive: true, force: true });
    await this.options.store.unregisterWorker(this.id);
  }

  /** A job's own folder, made on first use. */
  async jobFolder(jobId: string): Promise<string> {
    const folder = path.join(this.folder, jobId);
    await fs.mkdir(folder, { recursive: true });
    return folder;
  }

  async removeJobFolder(jobId: string): Promise<void> {
    await fs.rm(path.join(this.folder, jobId), { recursive: true, force: true });
  }

  /**
   * Removes the folders of the deployment's workers that are dead: registered from this machine by
   * a process that no longer exists (or by an earlier process with this one's pid, as a restarted
   * container has), or expired longer than `deadAfterMs` ago (their jobs are failed by then). A
   * folder without a registration is left alone: it may be another deployment's, sharing the folder.
   * Folders are listed before the registrations are read, so a folder's owner was registered by then.
   */
  async sweep(): Promise<void> {
    let names: string[];
    try {
      names = await fs.readdir(this.options.root);
    } catch {
      return;
    }
    const owners = names.flatMap((name) => {
      const id = FOLDER.exec(name)?.[1];
      return id && id !== this.id ? [{ name, id }] : [];
    });
    if (owners.length === 0) return;
    const workers = new Map((await this.options.store.listWorkers()).map((worker) => [worker.id, worker]));
    for (const { name, id } of owners) {
      if (!this.isDead(workers.get(id))) continue;
      await fs.rm(path.join(this.options.root, name), { recursive: true, force: true });
      this.options.log?.info(
        { folder: path.join(this.options.root, name), workerId: id },
        'removed the work folder of a dead worker',
      );
    }
  }

  private isDead(worker: RegisteredWorker | undefined): boolean {
    if (!worker) return false;
    if (worker.host === os.hostname()) {
      if (worker.pid === process.pid) return !workersOfThisProcess.has(worker.id);
      if (!processExists(worker.pid)) return true;
    }
    return Date.parse(worker.expiresAt) < this.options.clock.now().getTime() - this.options.deadAfterMs;
  }

  private register(): Promise<void> {
    return this.options.store.registerWorker({
      id: this.id,
      slots: this.slots,
      host: os.hostname(),
      pid: process.pid,
      startedAt: this.startedAt,
      aliveForMs: this.aliveForMs,
    });
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = (async () => {
      try {
        await this.register();
        await this.options.store.pruneWorkers(new Date(this.options.clock.now().getTime() - PRUNE_AFTER_MS));
        await this.sweep();
      } catch (err) {
        this.options.log?.warn({ err }, 'refreshing the worker registration failed');
      }
    })();
    await this.ticking;
    this.ticking = undefined;
  }
}
