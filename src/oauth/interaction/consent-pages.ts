import { SCOPES, type Scope } from '../../domain/access/scopes.js';
import { html } from '../../domain/html.js';
import { page } from './html.js';

/** The consent page's HTML: sign-in form and consent form (errors: errorPage). No JavaScript needed. */

export const CONSENT_NOTICES = {
  'sign-in-failed': 'The e-mail address or password is not correct.',
  'sign-in-throttled': 'Too many failed sign-ins. Wait a few minutes and try again.',
  'no-scope': 'Choose at least one permission to allow, or deny access.',
  'no-organization': 'Choose one of your organizations.',
} as const;

export type ConsentNotice = keyof typeof CONSENT_NOTICES;

export function isConsentNotice(value: unknown): value is ConsentNotice {
  return typeof value === 'string' && Object.hasOwn(CONSENT_NOTICES, value);
}

function notice(value: ConsentNotice | undefined) {
  return value ? html`<p class="error" role="alert">${CONSENT_NOTICES[value]}</p>` : '';
}

export interface FormBase {
  action: string;
  csrfToken: string;
  /** The authorization request's query string, carried through the form and checked again on POST. */
  requestQuery: string;
  applicationName: string;
  notice?: ConsentNotice | undefined;
}

export function signInPage(form: FormBase): string {
  return page(
    'Sign in',
    html`<h1>Sign in</h1>
<p><strong>${form.applicationName}</strong> asks for access to the Reality Data Platform on your behalf.</p>
${notice(form.notice)}
<form method="post" action="${form.action}">
<input type="hidden" name="csrf_token" value="${form.csrfToken}">
<input type="hidden" name="request" value="${form.requestQuery}">
<label for="email">E-mail</label><input type="email" id="email" name="email" autocomplete="username" required>
<label for="password">Password</label><input type="password" id="password" name="password" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p>
</form>`,
  );
}

export function consentPage(
  form: FormBase & { userEmail: string; organizations: { id: string; name: string }[]; scopes: Scope[] },
): string {
  const choices = form.organizations.map(
    (org, index) => html`<option value="${org.id}"${index === 0 ? html` selected` : ''}>${org.name}</option>`,
  );
  const scopes = form.scopes.map(
    (scope) =>
      html`<label><input type="checkbox" name="scopes" value="${scope}" checked> <code>${scope}</code>: ${SCOPES[scope]}</label>`,
  );
  const organizationField =
    form.organizations.length > 0
      ? html`<label for="org_id">Organization</label><select id="org_id" name="org_id">${choices}</select>`
      : html`<p class="error">Your account belongs to no organization, so there is nothing to authorize.</p>`;
  return page(
    'Authorize application',
    html`<h1>Authorize ${form.applicationName}</h1>
<p>Signed in as ${form.userEmail}. <strong>${form.applicationName}</strong> asks to act on your behalf with these permissions:</p>
${notice(form.notice)}
<form method="post" action="${form.action}">
<input type="hidden" name="csrf_token" value="${form.csrfToken}">
<input type="hidden" name="request" value="${form.requestQuery}">
${organizationField}
<fieldset><legend>Permissions</legend>${scopes}</fieldset>
<p>${form.organizations.length > 0 ? html`<button type="submit" name="decision" value="allow">Allow</button>` : ''}<button type="submit" name="decision" value="deny">Deny</button></p>
</form>`,
  );
}
