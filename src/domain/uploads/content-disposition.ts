/**
 * `Content-Disposition: attachment` with the file name (RFC 6266): a plain ASCII fallback in
 * `filename` and the exact name, percent-encoded UTF-8, in `filename*` (RFC 8187).
 */
export function attachmentDisposition(fileName: string): string {
  const fallback = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const exact = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}
