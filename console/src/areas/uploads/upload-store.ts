import { useEffect, useState } from 'preact/hooks';
import type { BundleUpload } from './bundle-upload.js';

/**
 * The uploads of this tab, by bundle id: they outlive the screen they started on, so the person
 * can open the bundle (or browse elsewhere) while the bytes go, and find the upload there.
 */
const uploads = new Map<string, BundleUpload>();
const listeners = new Set<() => void>();

function notify(): void {
  for (const listener of listeners) listener();
}

/** Whether this tab runs (or ran) an upload of the bundle. */
export function hasUpload(bundleId: string): boolean {
  return uploads.has(bundleId);
}

export function startUpload(upload: BundleUpload): void {
  uploads.set(upload.bundle.id, upload);
  upload.subscribe(notify);
  notify();
  void upload.run();
}

/**
 * The uploads `which` picks, re-rendered as they progress: at most once a frame, however often
 * the parts report their bytes.
 */
export function useUploads(which: (upload: BundleUpload) => boolean): BundleUpload[] {
  const [, setTick] = useState(0);
  useEffect(() => {
    let frame: number | undefined;
    const listener = () => {
      frame ??= requestAnimationFrame(() => {
        frame = undefined;
        setTick((tick) => tick + 1);
      });
    };
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (frame !== undefined) cancelAnimationFrame(frame);
    };
  }, []);
  return [...uploads.values()].filter(which);
}
