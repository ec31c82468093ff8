import { ok, type Schema } from '@reality-data-platform/sdk/browser';
import type { ConsoleSession } from '../../auth/session.js';

export type EmbedSession = Schema<'EmbedSession'>;

/** The lifetime's bounds, in minutes, as the API sets them (docs/embedding.md: 300 to 86400 seconds). */
export const MIN_LIFETIME_MINUTES = 5;
export const MAX_LIFETIME_MINUTES = 24 * 60;
export const DEFAULT_LIFETIME_MINUTES = 60;

export function embedSessionsHref(siteId: string): string {
  return `/twins/${siteId}/embed-sessions`;
}

/** The site's open embed sessions, newest first (one page of up to 500: sessions are few). */
export async function listEmbedSessions(session: ConsoleSession, siteId: string): Promise<EmbedSession[]> {
  const page = await ok(session.api.GET('/v1/embed-sessions', { params: { query: { twinId: siteId, limit: 500 } } }));
  return page.items;
}

/** The origins typed one a line (or separated by spaces or commas), blank ones left out. */
export function parseOrigins(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '');
}

/**
 * What is wrong with the form in words before it is sent, or undefined. The API checks the
 * origins' form itself and its answer is shown as it words it.
 */
export function embedFormProblem(origins: string[], minutes: number): string | undefined {
  if (origins.length === 0) return 'Give at least one origin that may show the viewer, such as https://app.example.com.';
  if (!Number.isInteger(minutes) || minutes < MIN_LIFETIME_MINUTES || minutes > MAX_LIFETIME_MINUTES) {
    return `The lifetime is a whole number of minutes from ${MIN_LIFETIME_MINUTES} to ${MAX_LIFETIME_MINUTES} (24 hours).`;
  }
  return undefined;
}

/** A lifetime in words: 90 minutes is "1 h 30 min". */
export function formatMinutes(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  return [hours > 0 ? `${hours} h` : '', rest > 0 ? `${rest} min` : ''].filter(Boolean).join(' ') || '0 min';
}
