import { RdpApiError } from '@reality-data-platform/sdk/browser';

/** One signed address of an upload: the whole file (part 1), or one part of a multipart upload. */
export interface PartTarget {
  partNumber: number;
  size: number;
  uploadUrl: string;
}

/**
 * PUTs one part to its signed address (no token: the address is the authorization) and answers
 * the ETag the storage gave it, bare. XMLHttpRequest, not fetch: only it reports the bytes sent
 * as they go (`onSent` hears the count so far).
 */
export function putPart(target: PartTarget, body: Blob, signal: AbortSignal, onSent: (bytes: number) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('PUT', target.uploadUrl);
    request.upload.onprogress = (event) => onSent(event.loaded);
    request.onload = () => {
      if (request.status >= 200 && request.status < 300) {
        const etag = request.getResponseHeader('etag');
        if (etag) resolve(etag.replace(/^W\//, '').replaceAll('"', '').toLowerCase());
        else reject(new Error('The storage did not tell the part’s ETag (its CORS setup must expose the ETag header).'));
        return;
      }
      reject(refusal(request));
    };
    request.onerror = () => reject(new TypeError('The upload was interrupted: the storage could not be reached.'));
    request.onabort = () => reject(new DOMException('Paused', 'AbortError'));
    signal.addEventListener('abort', () => request.abort(), { once: true });
    request.send(body);
  });
}

/** The storage's refusal in the platform's error shape when it has one (the embedded endpoint's). */
function refusal(request: XMLHttpRequest): Error {
  try {
    const body = JSON.parse(request.responseText) as { error?: string; message?: string };
    return new RdpApiError(
      request.status,
      { ...body, error: body.error ?? 'UploadRefused' },
      request.getResponseHeader('x-request-id') ?? undefined,
    );
  } catch {
    return new Error(`The storage refused a part of the file (status ${request.status}).`);
  }
}
