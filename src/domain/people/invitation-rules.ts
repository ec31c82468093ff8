import { ApiError, validationError } from '../errors.js';
import { html } from '../html.js';

/** The rules of invitations that need no store: the address, its domain, the mail (the seat: user-rules.ts). */

/**
 * A row still `sending` after this long belongs to a request that died between storing it and
 * hearing from the mail server (whose every wait is at most two minutes): housekeeping removes
 * it, and so does a new invitation of the same address to the same node.
 */
export const STALE_SENDING_MS = 10 * 60 * 1000;

const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[^\s@<>()[\],;:"]+$/;

/** The invited address as stored and compared: lower-case. */
export function normalizeInvitedEmail(raw: string): string {
  const email = raw.toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) throw validationError('body.email: must be an e-mail address');
  return email;
}

export function emailDomain(email: string): string {
  return email.slice(email.lastIndexOf('@') + 1).toLowerCase();
}

/** An organization with allowed domains accepts only addresses at one of them (exactly, not subdomains). */
export function isDomainAllowed(email: string, allowedDomains: readonly string[]): boolean {
  const domain = emailDomain(email);
  return allowedDomains.length === 0 || allowedDomains.some((allowed) => allowed.toLowerCase() === domain);
}

export function checkEmailDomain(email: string, allowedDomains: readonly string[]): void {
  if (!isDomainAllowed(email, allowedDomains)) {
    throw new ApiError('InvalidEmailDomain', `Addresses at ${emailDomain(email)} are not allowed in this organization`);
  }
}

/** Parses organizations.email_domains (a JSON array). */
export function allowedDomains(json: string): string[] {
  const parsed: unknown = JSON.parse(json || '[]');
  return Array.isArray(parsed) ? parsed.filter((value): value is string => typeof value === 'string') : [];
}

export interface InvitationMailFacts {
  organizationName: string;
  nodeName: string;
  /** The organization node itself: the invitation is to the organization. */
  toOrganization: boolean;
  roleName: string;
  link: string;
}

export function invitationMail(facts: InvitationMailFacts) {
  const place = facts.toOrganization ? facts.organizationName : `${facts.nodeName} in ${facts.organizationName}`;
  const subject = `You are invited to ${facts.organizationName} on the Reality Data Platform`;
  const text = [
    `You are invited to ${place} on the Reality Data Platform, with the role ${facts.roleName}.`,
    '',
    'Open this link to accept: create your account, or sign in if you have one.',
    facts.link,
    '',
    'If you did not expect this invitation, ignore this message.',
  ].join('\n');
  const body = html`<p>You are invited to <strong>${place}</strong> on the Reality Data Platform, with the role <strong>${facts.roleName}</strong>.</p>
<p><a href="${facts.link}">Accept the invitation</a>: create your account, or sign in if you have one.</p>
<p>If you did not expect this invitation, ignore this message.</p>`;
  return { subject, text, html: body.value };
}

/** What a new account needs on the invitation page; the problem to show, or undefined. */
export function newAccountProblem(input: { firstName: string; lastName: string; password: string }): string | undefined {
  for (const [label, value] of [
    ['first name', input.firstName],
    ['last name', input.lastName],
  ] as const) {
    if (value.trim() === '') return `Enter your ${label}.`;
    if ([...value].length > 255) return `Your ${label} can have at most 255 characters.`;
  }
  if ([...input.password].length < 8) return 'Choose a password of at least 8 characters.';
  if (input.password.length > 1024) return 'Choose a password of at most 1024 characters.';
  return undefined;
}
