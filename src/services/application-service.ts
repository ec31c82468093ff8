import { randomUUID } from 'node:crypto';
import type { DirectoryRepository } from '../adapters/db/repositories/directory-repository.js';
import type { OAuthApplicationRow } from '../adapters/db/schema.js';
import { hashToken, randomToken } from '../crypto/secrets.js';
import { normalizeScopes, parseScopeString, type Scope } from '../domain/access/scopes.js';
import { ApiError, validationError } from '../domain/errors.js';
import { checkRedirectUri } from '../domain/oauth/redirect-uris.js';
import type { Clock } from '../ports/clock.js';

export type ApplicationFlow = OAuthApplicationRow['flow'];

/** What an admin chooses about an application, at creation and on every edit. */
export interface ApplicationSettings {
  name: string;
  flow: string;
  native?: boolean | undefined;
  redirectUris?: string[] | undefined;
  /** Whether the application has (or, at creation, gets) a client secret. */
  hasSecret: boolean;
  scopes: string[];
}

export interface ApplicationView {
  clientId: string;
  orgId: string;
  name: string;
  flow: ApplicationFlow;
  native: boolean;
  redirectUris: string[];
  /** As stored: may still hold deprecated names written before they were renamed. */
  scopes: string[];
  hasSecret: boolean;
  serviceUserId: string | null;
  createdAt: string;
  updatedAt: string;
}

function toView(row: OAuthApplicationRow): ApplicationView {
  return {
    clientId: row.client_id,
    orgId: row.org_id,
    name: row.name,
    flow: row.flow,
    native: row.is_native === 1,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    scopes: parseScopeString(row.scopes),
    hasSecret: row.secret_hash !== null,
    serviceUserId: row.service_user_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The registration rules (spec: Application registration), the one check that both creation
 * and editing go through. Deprecated scope names are accepted and come back under their new names.
 */
export function checkApplicationSettings(settings: ApplicationSettings): {
  flow: ApplicationFlow;
  redirectUris: string[];
  scopes: Scope[];
} {
  const name = settings.name.trim();
  const length = [...name].length;
  if (length < 1 || length > 255) throw validationError('name must be 1 to 255 characters');
  const { flow } = settings;
  if (flow !== 'client-credentials' && flow !== 'authorization-code') {
    throw validationError('flow must be client-credentials or authorization-code');
  }
  const { scopes, unknown } = normalizeScopes(settings.scopes);
  if (unknown.length > 0) throw validationError(`unknown scopes: ${unknown.join(', ')}`);
  if (scopes.length === 0) throw validationError('at least one scope is required');
  const redirectUris = (settings.redirectUris ?? []).map((uri) => uri.trim()).filter(Boolean);
  if (flow === 'client-credentials') {
    if (!settings.hasSecret) throw validationError('a client-credentials application needs a secret');
    if (redirectUris.length > 0) throw validationError('a client-credentials application has no redirect URI');
    if (settings.native) throw validationError('a client-credentials application cannot be a native application');
  } else {
    if (redirectUris.length === 0) throw validationError('an authorization-code application needs a redirect URI');
    for (const uri of redirectUris) {
      const problem = checkRedirectUri(uri, Boolean(settings.native));
      if (problem) throw validationError(problem);
    }
  }
  return { flow, redirectUris: [...new Set(redirectUris)], scopes };
}

export interface ApplicationServiceOptions {
  clock: Clock;
  /** Applications, their service users and their organization (global store). */
  directory: Pick<
    DirectoryRepository,
    'listApplications' | 'findApplication' | 'findOrganization' | 'insertApplication' | 'updateApplication' | 'deleteApplication'
  >;
  /** Tells the token endpoint's cache of this process that the application changed (oauth/recent-directory.ts). */
  forgetApplication(clientId: string, serviceUserId: string | null): void;
}

/** OAuth applications of an organization: registration, listing, editing and deletion. */
export class ApplicationService {
  private readonly clock: Clock;
  private readonly directory: ApplicationServiceOptions['directory'];
  private readonly forgetApplication: (clientId: string, serviceUserId: string | null) => void;

  constructor(options: ApplicationServiceOptions) {
    this.clock = options.clock;
    this.directory = options.directory;
    this.forgetApplication = options.forgetApplication;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  async list(orgId: string): Promise<ApplicationView[]> {
    return (await this.directory.listApplications(orgId)).map(toView);
  }

  async find(clientId: string): Promise<ApplicationView | undefined> {
    const row = await this.directory.findApplication(clientId);
    return row ? toView(row) : undefined;
  }

  /** Registers an application; the secret is returned here only, the store keeps its hash. */
  async create(orgId: string, settings: ApplicationSettings) {
    if (!(await this.directory.findOrganization(orgId))) {
      throw new ApiError('NotFound', `organization ${orgId} not found`);
    }
    const { flow, redirectUris, scopes } = checkApplicationSettings(settings);
    const name = settings.name.trim();
    const clientId = randomUUID();
    const clientSecret = settings.hasSecret ? randomToken() : undefined;
    const now = this.now();
    const serviceUserId = flow === 'client-credentials' ? randomUUID() : undefined;
    await this.directory.insertApplication(
      {
        client_id: clientId,
        org_id: orgId,
        name,
        flow,
        is_native: settings.native ? 1 : 0,
        redirect_uris: JSON.stringify(redirectUris),
        secret_hash: clientSecret ? hashToken(clientSecret) : null,
        scopes: scopes.join(' '),
        service_user_id: serviceUserId ?? null,
        grants_not_before: null,
        created_at: now,
        updated_at: now,
      },
      serviceUserId
        ? {
            id: serviceUserId,
            email: `${clientId}@service-users.invalid`,
            password_hash: null,
            first_name: name,
            last_name: 'Service User',
            kind: 'service',
            deactivated_at: null,
            tokens_not_before: null,
            created_at: now,
            updated_at: now,
          }
        : undefined,
    );
    return { clientId, clientSecret, serviceUserId, scopes };
  }

  /**
   * Changes name, redirect URIs, native switch and scopes; the flow stays. With `newSecret` a
   * fresh secret replaces the old one and is returned once. Dropping a scope ends the grants
   * issued until then (grants_not_before): their refresh and access tokens are refused.
   */
  async update(
    clientId: string,
    changes: { name: string; native?: boolean; redirectUris?: string[]; scopes: string[]; newSecret?: boolean },
  ) {
    const current = await this.requireApplication(clientId);
    const hasSecret = current.hasSecret || Boolean(changes.newSecret);
    const { redirectUris, scopes } = checkApplicationSettings({ ...changes, flow: current.flow, hasSecret });
    const kept = new Set<string>(scopes);
    const narrowed = normalizeScopes(current.scopes).scopes.some((scope) => !kept.has(scope));
    const clientSecret = changes.newSecret ? randomToken() : undefined;
    const now = this.now();
    await this.directory.updateApplication(clientId, {
      name: changes.name.trim(),
      is_native: changes.native ? 1 : 0,
      redirect_uris: JSON.stringify(redirectUris),
      scopes: scopes.join(' '),
      updated_at: now,
      ...(clientSecret ? { secret_hash: hashToken(clientSecret) } : {}),
      ...(narrowed ? { grants_not_before: now } : {}),
    });
    this.forgetApplication(clientId, current.serviceUserId);
    return { clientId, clientSecret, scopes };
  }

  /**
   * Removes an application: its refresh tokens no longer authenticate and its service user
   * (client credentials) is deactivated, so that the tokens already issued stop within a second.
   */
  async delete(clientId: string): Promise<void> {
    const current = await this.requireApplication(clientId);
    await this.directory.deleteApplication(clientId, { at: this.now(), serviceUserId: current.serviceUserId });
    this.forgetApplication(clientId, current.serviceUserId);
  }

  private async requireApplication(clientId: string): Promise<ApplicationView> {
    const found = await this.find(clientId);
    if (!found) throw new ApiError('NotFound', `application ${clientId} not found`);
    return found;
  }
}
