import type { PartTarget } from '../../transfer/put-part.js';

/**
 * What a bundle's upload got through, kept in the browser's IndexedDB so that it outlives a
 * reload or a closed tab: the session, each file's identity (name, size, last change: how the
 * same file is known when picked again), its part addresses and the parts done with their
 * ETags (finalize needs them; the API cannot list the parts it holds). Forgotten when the upload
 * ends or the person gives it up (docs/console.md, "Uploads").
 */
export interface JournalFile {
  name: string;
  size: number;
  lastModified: number;
  /** The session file's id, once added. */
  id?: string;
  partSize: number;
  /** Signed, expiring addresses (they end with the session's reservation). */
  parts: PartTarget[];
  done: [partNumber: number, etag: string][];
}

export interface JournalEntry {
  bundleId: string;
  bundleName: string;
  parentId: string;
  sessionId?: string;
  files: JournalFile[];
}

const DATABASE = 'rdp-console-uploads';
const STORE = 'uploads';

let opened: Promise<IDBDatabase> | undefined;

function database(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'bundleId' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  return opened;
}

async function inStore<T>(mode: IDBTransactionMode, act: (store: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await database();
  return new Promise((resolve, reject) => {
    const transaction = db.transaction(STORE, mode);
    const request = act(transaction.objectStore(STORE));
    // Resolved once the transaction is durable, not when the request alone succeeded.
    transaction.oncomplete = () => resolve(request.result);
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error);
  });
}

/** Keeps the entry as it is now (writes of one bundle land in the order they were made). */
export function saveUpload(entry: JournalEntry): Promise<void> {
  return inStore('readwrite', (store) => store.put(entry)).then(() => undefined);
}

export function forgetUpload(bundleId: string): Promise<void> {
  return inStore('readwrite', (store) => store.delete(bundleId)).then(() => undefined);
}

export function journaledUploads(): Promise<JournalEntry[]> {
  return inStore('readonly', (store) => store.getAll() as IDBRequest<JournalEntry[]>);
}

export async function journaledUpload(bundleId: string): Promise<JournalEntry | undefined> {
  return inStore('readonly', (store) => store.get(bundleId) as IDBRequest<JournalEntry | undefined>);
}

/**
 * Why the files picked are not the ones the entry was sending (in words), or undefined when each
 * of its files is among them, known by name, size and last change.
 */
export function mismatch(entry: JournalEntry, picked: File[]): string | undefined {
  const same = (file: File, kept: JournalFile) =>
    file.name === kept.name && file.size === kept.size && file.lastModified === kept.lastModified;
  const stranger = picked.find((file) => !entry.files.some((kept) => same(file, kept)));
  if (stranger) {
    const named = entry.files.find((kept) => kept.name === stranger.name);
    return named
      ? `${stranger.name} is not the file this upload was sending: that one had ${named.size.toLocaleString('en')} bytes and was last changed ${new Date(named.lastModified).toLocaleString()}. Pick that same file.`
      : `${stranger.name} is not one of the files this upload was sending (${entry.files.map((kept) => kept.name).join(', ')}).`;
  }
  const missing = entry.files.filter((kept) => !picked.some((file) => same(file, kept)));
  if (missing.length > 0)
    return `Pick ${missing.map((kept) => kept.name).join(', ')} as well: the upload needs every one of its files.`;
  return undefined;
}
