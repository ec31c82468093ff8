import { html, type SafeHtml } from '../../domain/html.js';
import { page } from '../../oauth/interaction/html.js';

/** A link of the landing page: where it goes and what a newcomer finds there. */
export interface LandingLink {
  label: string;
  url: string;
  about: string;
}

/**
 * What the landing page shows, decided by the roles of the process (landing-routes.ts). Each
 * section is a list, so a new surface (the console, when it exists) is one more entry.
 */
export interface LandingContent {
  /** Pages for people: sign-in, settings, the outbox, the console. */
  pages: LandingLink[];
  /** API references (pages) and their OpenAPI documents. */
  references: (LandingLink & { document: string })[];
  /** Where this process's roles leave off: e.g. the authorization server served elsewhere. */
  notes: string[];
}

function links(items: LandingLink[]): SafeHtml {
  return html`<ul>${items.map((item) => html`<li><a href="${item.url}">${item.label}</a>: ${item.about}</li>`)}</ul>`;
}

/** The page a browser gets at `/` and `{auth_url}`: what the platform is and where to go next. */
export function landingPage(content: LandingContent): string {
  const references = content.references.map(
    (reference) =>
      html`<li><a href="${reference.url}">${reference.label}</a>: ${reference.about} (<a href="${reference.document}">OpenAPI document</a>)</li>`,
  );
  return page(
    'Welcome',
    html`<h1>Reality Data Platform</h1>
<p>A self-hosted platform for 3D reality-capture data: point clouds and scans are uploaded into a tree of
organizations, divisions and sites, processed into 3D tiles, and shown in a web viewer as a site's
digital twin. Applications reach it through OAuth 2.0 and a regional REST API.</p>
${content.pages.length > 0 ? html`<h2>For people</h2>${links(content.pages)}` : ''}
${references.length > 0 ? html`<h2>API references</h2><ul>${references}</ul>` : ''}
${content.notes.map((note) => html`<p>${note}</p>`)}
<p>Getting started, from an empty store to a processed point cloud in the viewer: the README of the project.</p>`,
  );
}
