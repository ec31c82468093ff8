import { BlobReferenceRepository } from '../adapters/db/repositories/blob-reference-repository.js';
import type { Platform } from '../platform.js';
import { AdminService } from '../services/admin-service.js';
import { ApplicationService } from '../services/application-service.js';
import { type BlobCheck, verifyBlobs } from '../services/backups/blob-verification.js';
import { InvitationAcceptance } from '../services/people/invitation-acceptance.js';
import { ScimAuthenticator } from '../services/scim/scim-authenticator.js';
import { scimBaseUrl } from '../services/scim/scim-context.js';
import { ScimGroupService } from '../services/scim/scim-group-service.js';
import { ScimUserService } from '../services/scim/scim-user-service.js';
import { membershipChanges, nodeServices, scimTokenService } from './region-services.js';

/*
 * The services that span the regions, built over the platform: what the authorization server's
 * pages, SCIM and `rdp admin` call. A region's services are built in region-services.ts. Each is
 * given what it uses, taken here from the platform; none is given the platform.
 */

export function applicationService(platform: Platform): ApplicationService {
  return new ApplicationService({
    clock: platform.clock,
    directory: platform.directory,
    forgetApplication: (clientId, serviceUserId) => platform.recentDirectory.forgetApplication(clientId, serviceUserId),
  });
}

export function invitationAcceptance(platform: Platform): InvitationAcceptance {
  return new InvitationAcceptance({
    clock: platform.clock,
    directory: platform.directory,
    members: platform.members,
    regions: () => platform.openedRegions(),
  });
}

export interface ScimServices {
  authenticator: ScimAuthenticator;
  users: ScimUserService;
  groups: ScimGroupService;
}

export function scimServices(platform: Platform): ScimServices {
  const { clock, members, scimUsers } = platform;
  return {
    authenticator: new ScimAuthenticator({
      clock,
      tokens: platform.scimTokens,
      regionOf: (region) => platform.region(region),
      baseUrl: scimBaseUrl(platform.config.publicUrl),
    }),
    users: new ScimUserService({
      clock,
      members,
      directory: platform.directory,
      users: platform.users,
      scimUsers,
      globalTransaction: platform.globalTransaction,
      principalChanged: (userId) => platform.principalChanges.changed(userId),
    }),
    groups: new ScimGroupService({ clock, members, scimUsers }),
  };
}

/** What `rdp admin` and the tests provision with. */
export function adminService(platform: Platform): AdminService {
  return new AdminService({
    clock: platform.clock,
    directory: platform.directory,
    regionUrls: platform.config.regionUrls,
    region: (name) => platform.region(name),
    openedRegions: () => platform.openedRegions(),
    applications: applicationService(platform),
    scimTokensIn: (region) => scimTokenService(platform, nodeServices(platform, platform.region(region)).nodes),
    membershipChangesIn: (region) => membershipChanges(platform, platform.region(region)),
  });
}

/** `rdp admin verify`: every blob the opened regions' stores name, checked in the blob store. */
export function blobVerification(platform: Platform): () => Promise<BlobCheck> {
  const regions = platform.openedRegions().map(({ region, store }) => {
    const names = new BlobReferenceRepository(store.db);
    return { region, references: () => names.all() };
  });
  return () => verifyBlobs(regions, platform.blobs);
}
