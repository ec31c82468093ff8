import { randomBytes } from 'node:crypto';
import { ApiClient, clientCredentialsToken } from './fixtures.js';
import type { TestPlatform } from './platform.js';
import { uploadBytes } from './uploads.js';

/** A site file stored through the API, with the bytes it was given. */
export interface WrittenFile {
  id: string;
  bytes: Buffer;
}

/** Initiates, uploads and finalizes one site file; throws on any answer but success (a failed write). */
export async function writeSiteFile(client: ApiClient, parentId: string, name: string, bytes: Buffer): Promise<WrittenFile> {
  const initiated = await client.post('/v1/site-files', { parentId, name, size: bytes.length });
  if (initiated.status !== 201) throw new Error(`initiate answered ${initiated.status}: ${JSON.stringify(initiated.body)}`);
  const { etag } = await uploadBytes(initiated.body, bytes);
  const finalized = await client.post(`/v1/site-files/${initiated.body.id}/finalize`, { etag });
  if (finalized.status !== 200) throw new Error(`finalize answered ${finalized.status}: ${JSON.stringify(finalized.body)}`);
  return { id: initiated.body.id, bytes };
}

/** Bytes that differ from every other test file's. */
export function someBytes(size: number): Buffer {
  return randomBytes(size);
}

/** The file's bytes as the platform serves them, or the status when it does not. */
export async function downloaded(client: ApiClient, id: string): Promise<{ status: number; bytes: Buffer; etag: string | null }> {
  const response = await fetch(`${client.baseUrl}/v1/site-files/${id}/download`, {
    headers: { authorization: `Bearer ${client.token}` },
  });
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()), etag: response.headers.get('etag') };
}

/** An administrator's client of the same application on another platform (a restored copy): a token of its own. */
export async function clientOn(t: TestPlatform, region: string, credentials: { clientId: string; clientSecret: string }) {
  const token = await clientCredentialsToken(t, credentials.clientId, credentials.clientSecret);
  return new ApiClient(`${t.origin}/${region}/reality`, token);
}
