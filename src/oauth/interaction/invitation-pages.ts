import { html } from '../../domain/html.js';
import { errorPage, page } from './html.js';

/** The invitation page's HTML: the invitation, the form that accepts it, and what it leads to. */

export interface InvitationFacts {
  organizationName: string;
  nodeName: string;
  /** Invited to the organization itself, not to a node inside it. */
  toOrganization: boolean;
  roleName: string;
  email: string;
}

export interface InvitationForm {
  action: string;
  csrf: string;
  facts: InvitationFacts;
  /** sign-up: no account has the address yet; sign-in: one has, and its password is asked. */
  mode: 'sign-up' | 'sign-in';
  values?: { firstName: string; lastName: string };
  error?: string | undefined;
}

function factsTable(facts: InvitationFacts) {
  return html`<table>
<tr><th scope="row">Organization</th><td>${facts.organizationName}</td></tr>
<tr><th scope="row">${facts.toOrganization ? 'Access to' : 'Node'}</th><td>${facts.toOrganization ? 'The whole organization' : facts.nodeName}</td></tr>
<tr><th scope="row">Role</th><td>${facts.roleName}</td></tr>
<tr><th scope="row">E-mail</th><td>${facts.email}</td></tr>
</table>`;
}

export function invitationPage(form: InvitationForm): string {
  const { facts } = form;
  const fields =
    form.mode === 'sign-up'
      ? html`<p>Create your account to accept.</p>
<label for="first_name">First name</label><input type="text" id="first_name" name="first_name" value="${form.values?.firstName ?? ''}" required autocomplete="given-name">
<label for="last_name">Last name</label><input type="text" id="last_name" name="last_name" value="${form.values?.lastName ?? ''}" required autocomplete="family-name">
<label for="password">Password (at least 8 characters)</label><input type="password" id="password" name="password" minlength="8" required autocomplete="new-password">
<p><button type="submit">Create account and accept</button></p>`
      : html`<p>An account with ${facts.email} exists. Enter its password to accept.</p>
<input type="email" name="email" value="${facts.email}" autocomplete="username" hidden readonly>
<label for="password">Password</label><input type="password" id="password" name="password" required autocomplete="current-password">
<p><button type="submit">Sign in and accept</button></p>`;
  return page(
    'Invitation',
    html`<h1>Join ${facts.organizationName}</h1>
<p>You are invited to the Reality Data Platform:</p>
${factsTable(facts)}
${form.error ? html`<p class="error" role="alert">${form.error}</p>` : ''}
<form method="post" action="${form.action}"><input type="hidden" name="csrf" value="${form.csrf}">
${fields}
</form>`,
  );
}

export function invitationAcceptedPage(
  facts: InvitationFacts,
  options: { isAdmin: boolean; settingsUrl: string; consoleUrl: string },
): string {
  const next = options.isAdmin
    ? html`<p>As an administrator you can <a href="${options.settingsUrl}">sign in to the organization settings</a> to register applications.</p>`
    : '';
  return page(
    'Invitation accepted',
    html`<h1>Welcome to ${facts.organizationName}</h1>
<p>The invitation is accepted: you now have this role.</p>
${factsTable(facts)}
<p><a href="${options.consoleUrl}">Open the console</a></p>
<p>In the console you find what you now have access to. Other applications that use the Reality Data Platform will ask you to sign in with ${facts.email} and your password.</p>
${next}`,
  );
}

export type ClosedInvitation = 'unknown' | 'revoked' | 'accepted' | 'gone';

const CLOSED: Record<ClosedInvitation, { status: number; title: string; message: string }> = {
  unknown: {
    status: 404,
    title: 'Invitation not found',
    message:
      'This invitation link is not valid. Check that you opened the whole link from the mail, or ask for a new invitation.',
  },
  revoked: {
    status: 410,
    title: 'Invitation withdrawn',
    message: 'This invitation was withdrawn. Ask for a new one if you need access.',
  },
  accepted: {
    status: 410,
    title: 'Invitation already accepted',
    message: 'This invitation has been accepted. Sign in to your applications with your account.',
  },
  gone: {
    status: 410,
    title: 'Invitation no longer valid',
    message: 'What this invitation was for no longer exists. Ask for a new invitation.',
  },
};

/** The page of a link that leads nowhere: 404 for an unknown link, 410 for one that worked once. */
export function closedInvitationPage(reason: ClosedInvitation): { status: number; body: string } {
  const { status, title, message } = CLOSED[reason];
  return { status, body: errorPage(title, message) };
}
