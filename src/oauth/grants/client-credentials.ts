import { normalizeScopes, parseScopeString } from '../../domain/access/scopes.js';
import { OAuthError } from '../oauth-error.js';
import type { GrantContext, TokenSet } from '../token-endpoint.js';

/** grant_type=client_credentials: the application acts as its own service user. */
export async function clientCredentialsGrant(context: GrantContext): Promise<TokenSet> {
  const { application, form, directory } = context;
  if (application.flow !== 'client-credentials' || !application.service_user_id) {
    throw new OAuthError('unauthorized_client', 'This application may not use the client_credentials grant');
  }
  if (!application.secret_hash) throw new OAuthError('invalid_client', 'Client credentials require a client secret');

  const allowed = parseScopeString(application.scopes);
  let scopes = allowed;
  if (form.scope) {
    const requested = normalizeScopes(parseScopeString(form.scope));
    const outside = [...requested.unknown, ...requested.scopes.filter((scope) => !allowed.includes(scope))];
    if (outside.length > 0) throw new OAuthError('invalid_scope', `Scopes not granted to this application: ${outside.join(' ')}`);
    scopes = requested.scopes;
  }
  const serviceUser = await directory.findUser(application.service_user_id);
  if (!serviceUser || serviceUser.deactivated_at) throw new OAuthError('invalid_grant', 'The service user is deactivated');

  return context.issueTokens({ userId: serviceUser.id, orgId: application.org_id, clientId: application.client_id, scopes });
}
