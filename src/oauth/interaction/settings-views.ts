import { LEGACY_SCOPES, SCOPES } from '../../domain/access/scopes.js';
import { html, type SafeHtml } from '../../domain/html.js';
import type { ApplicationView } from '../../services/application-service.js';
import { page } from './html.js';

/** The settings area's pages: markup only; settings-routes.ts decides who sees what. */

export interface Organization {
  id: string;
  name: string;
}

/** What the admin typed, kept when a refused form is shown again. */
export interface ApplicationFormValues {
  name: string;
  flow: string;
  native: boolean;
  redirectUris: string;
  secret: boolean;
  scopes: string[];
}

export const EMPTY_FORM: ApplicationFormValues = {
  name: '',
  flow: 'client-credentials',
  native: false,
  redirectUris: '',
  secret: true,
  scopes: [],
};

const FLOW_LABELS: Record<string, string> = {
  'client-credentials': 'Client Credentials',
  'authorization-code': 'Authorization Code',
};

function csrfField(csrf: string): SafeHtml {
  return html`<input type="hidden" name="csrf" value="${csrf}">`;
}

function errorBox(error: string | undefined): SafeHtml {
  return error ? html`<p class="error" role="alert">${error}</p>` : html``;
}

function header(email: string, csrf: string): SafeHtml {
  return html`<form method="post" action="/auth/sign-out">${csrfField(csrf)}
<p>Signed in as ${email} <button type="submit">Sign out</button></p></form>`;
}

/** The full scope list with descriptions, plus any deprecated name the application still carries. */
function scopeFields(checked: string[]): SafeHtml {
  const deprecated = checked.filter((scope) => Object.hasOwn(LEGACY_SCOPES, scope));
  return html`<fieldset><legend>Scopes</legend>
${Object.entries(SCOPES).map(
  ([scope, description]) =>
    html`<label><input type="checkbox" name="scopes" value="${scope}"${checked.includes(scope) ? html` checked` : ''}> ${scope}: ${description}</label>`,
)}
${deprecated.map(
  (scope) =>
    html`<label><input type="checkbox" name="scopes" value="${scope}" checked> ${scope} (deprecated: saved as ${LEGACY_SCOPES[scope]})</label>`,
)}
</fieldset>`;
}

export function signInPage(csrf: string, email: string, error?: string): string {
  return page(
    'Sign in',
    html`<h1>Sign in to settings</h1>${errorBox(error)}
<form method="post" action="/auth/sign-in">${csrfField(csrf)}
<label for="email">E-mail</label><input type="email" id="email" name="email" value="${email}" required autocomplete="username">
<label for="password">Password</label><input type="password" id="password" name="password" required autocomplete="current-password">
<p><button type="submit">Sign in</button></p></form>`,
  );
}

export function messagePage(title: string, message: string): string {
  return page(
    title,
    html`<h1>${title}</h1><p class="error" role="alert">${message}</p><p><a href="/auth/settings/applications">Settings</a></p>`,
  );
}

function organizationChooser(orgs: Organization[], current: Organization): SafeHtml {
  if (orgs.length < 2) return html`<p>Organization: <strong>${current.name}</strong></p>`;
  return html`<nav aria-label="Organizations"><p>Organization:</p><ul>${orgs.map((org) =>
    org.id === current.id
      ? html`<li><strong aria-current="page">${org.name}</strong></li>`
      : html`<li><a href="/auth/settings/applications?org=${encodeURIComponent(org.id)}">${org.name}</a></li>`,
  )}</ul></nav>`;
}

function applicationRow(app: ApplicationView): SafeHtml {
  return html`<tr><td><a href="/auth/settings/applications/${encodeURIComponent(app.clientId)}">${app.name}</a></td>
<td><code>${app.clientId}</code></td><td>${FLOW_LABELS[app.flow]}</td><td>${app.native ? 'yes' : 'no'}</td>
<td>${app.redirectUris.map((uri) => html`${uri}<br>`)}</td><td>${app.scopes.join(' ')}</td><td>${app.createdAt}</td></tr>`;
}

export function applicationListPage(view: {
  email: string;
  csrf: string;
  orgs: Organization[];
  org: Organization;
  applications: ApplicationView[];
  form: ApplicationFormValues;
  error?: string | undefined;
}): string {
  const { form } = view;
  const flowOption = (flow: string) =>
    html`<label><input type="radio" name="flow" value="${flow}"${form.flow === flow ? html` checked` : ''}> ${FLOW_LABELS[flow]}</label>`;
  return page(
    'OAuth applications',
    html`${header(view.email, view.csrf)}<h1>Third-party access: OAuth applications</h1>
${organizationChooser(view.orgs, view.org)}
${
  view.applications.length === 0
    ? html`<p>No applications yet.</p>`
    : html`<table><thead><tr><th>Name</th><th>Client id</th><th>Flow</th><th>Native</th><th>Redirect URIs</th><th>Scopes</th><th>Created</th></tr></thead>
<tbody>${view.applications.map(applicationRow)}</tbody></table>`
}
<h2>Register an application</h2>${errorBox(view.error)}
<form method="post" action="/auth/settings/applications">${csrfField(view.csrf)}
<input type="hidden" name="org" value="${view.org.id}">
<label for="name">Name</label><input type="text" id="name" name="name" value="${form.name}" required maxlength="255">
<fieldset><legend>Flow</legend>${flowOption('client-credentials')}${flowOption('authorization-code')}</fieldset>
<label><input type="checkbox" name="native" value="on"${form.native ? html` checked` : ''}> Native application (loopback redirects http://127.0.0.1 or http://[::1], any port)</label>
<label for="redirect_uris">Redirect URIs (Authorization Code only; one per line: HTTPS, fully qualified domain name, no query, no fragment)</label>
<textarea id="redirect_uris" name="redirect_uris" rows="3" cols="60">${form.redirectUris}</textarea>
<label><input type="checkbox" name="secret" value="on"${form.secret ? html` checked` : ''}> Issue a client secret (required for Client Credentials; optional for Authorization Code)</label>
${scopeFields(form.scopes)}
<p><button type="submit">Register</button></p></form>`,
  );
}

export function applicationPage(view: {
  email: string;
  csrf: string;
  app: ApplicationView;
  /** Set right after creation or a new secret: shown this once, never stored in the clear. */
  newSecret?: string | undefined;
  form?: { name: string; native: boolean; redirectUris: string; scopes: string[] } | undefined;
  error?: string | undefined;
}): string {
  const { app } = view;
  const form = view.form ?? {
    name: app.name,
    native: app.native,
    redirectUris: app.redirectUris.join('\n'),
    scopes: app.scopes,
  };
  const authorizationCode = app.flow === 'authorization-code';
  return page(
    app.name,
    html`${header(view.email, view.csrf)}<p><a href="/auth/settings/applications?org=${encodeURIComponent(app.orgId)}">All applications</a></p>
<h1>${app.name}</h1>
${
  view.newSecret
    ? html`<section class="error" role="status" id="new-credentials"><p><strong>Store the client secret now: it is shown only this once.</strong></p>
<p>Client id: <span class="secret" id="new-client-id">${app.clientId}</span></p>
<p>Client secret: <span class="secret" id="new-client-secret">${view.newSecret}</span></p></section>`
    : ''
}
<table><tbody><tr><th>Client id</th><td><code id="client-id">${app.clientId}</code></td></tr>
<tr><th>Flow</th><td>${FLOW_LABELS[app.flow]}</td></tr><tr><th>Client secret</th><td>${app.hasSecret ? 'set (not shown)' : 'none'}</td></tr>
<tr><th>Created</th><td>${app.createdAt}</td></tr><tr><th>Updated</th><td>${app.updatedAt}</td></tr></tbody></table>
<h2>Edit</h2>${errorBox(view.error)}
<form method="post" action="/auth/settings/applications/${encodeURIComponent(app.clientId)}">${csrfField(view.csrf)}
<label for="name">Name</label><input type="text" id="name" name="name" value="${form.name}" required maxlength="255">
${
  authorizationCode
    ? html`<label><input type="checkbox" name="native" value="on"${form.native ? html` checked` : ''}> Native application (loopback redirects)</label>
<label for="redirect_uris">Redirect URIs (one per line)</label><textarea id="redirect_uris" name="redirect_uris" rows="3" cols="60">${form.redirectUris}</textarea>`
    : ''
}
${scopeFields(form.scopes)}
<label><input type="checkbox" name="new_secret" value="on"> ${app.hasSecret ? 'Issue a new client secret (the current one stops working)' : 'Issue a client secret'}</label>
<p><button type="submit">Save</button></p></form>
<h2>Delete</h2><form method="post" action="/auth/settings/applications/${encodeURIComponent(app.clientId)}/delete">${csrfField(view.csrf)}
<p>Deleting revokes the application's refresh tokens${app.flow === 'client-credentials' ? ' and deactivates its service user' : ''}; its tokens stop working.</p>
<p><button type="submit">Delete application</button></p></form>`,
  );
}
