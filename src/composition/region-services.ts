import { BusinessObjectRepository } from '../adapters/db/repositories/business-object-repository.js';
import { LibraryTagRepository } from '../adapters/db/repositories/library-tag-repository.js';
import { MetadataTypeRepository } from '../adapters/db/repositories/metadata-type-repository.js';
import { PlanningRepository } from '../adapters/db/repositories/planning-repository.js';
import { TwinLayerRepository } from '../adapters/db/repositories/twin-layer-repository.js';
import { TwinRepository } from '../adapters/db/repositories/twin-repository.js';
import type { Region } from '../domain/regions.js';
import type { Platform, RegionContext } from '../platform.js';
import { ComparisonLifecycle } from '../services/comparisons/comparison-lifecycle.js';
import { ComparisonService } from '../services/comparisons/comparison-service.js';
import { EmbedSessionService } from '../services/embed/embed-session-service.js';
import { ViewerSessions } from '../services/embed/viewer-sessions.js';
import { LibraryModelService } from '../services/library/library-model-service.js';
import { LibraryTagService } from '../services/library/library-tag-service.js';
import { ModelPreviewLifecycle } from '../services/library/model-preview-lifecycle.js';
import { MetadataTypeService } from '../services/metadata/metadata-type-service.js';
import { type NodeAccess, NodeService } from '../services/node-service.js';
import { NodeTreeService } from '../services/node-tree-service.js';
import { AuditService } from '../services/people/audit-service.js';
import { GroupService } from '../services/people/group-service.js';
import { InvitationService } from '../services/people/invitation-service.js';
import { MembershipChanges } from '../services/people/membership-changes.js';
import { MembershipService } from '../services/people/membership-service.js';
import { PlaceService } from '../services/people/place-service.js';
import { RoleService } from '../services/people/role-service.js';
import { UserService } from '../services/people/user-service.js';
import { LayoutModelAssetService } from '../services/planning/layout-model-asset-service.js';
import { PlanningService } from '../services/planning/planning-service.js';
import { ProcessingLifecycle } from '../services/processing/processing-lifecycle.js';
import { ProcessingService } from '../services/processing/processing-service.js';
import { TilesetService } from '../services/processing/tileset-service.js';
import { scimBaseUrl } from '../services/scim/scim-context.js';
import { ScimTokenService } from '../services/scim/scim-token-service.js';
import { BusinessObjectSearchService } from '../services/twins/business-object-search-service.js';
import { ModelAssetService } from '../services/twins/model-asset-service.js';
import { ModelPlacementRules } from '../services/twins/model-placement.js';
import { ObjectKindService } from '../services/twins/object-kind-service.js';
import { ObjectMetadataService } from '../services/twins/object-metadata-service.js';
import { namedZoneCheck } from '../services/twins/point-of-interest-rules.js';
import { TwinLayerService } from '../services/twins/twin-layer-service.js';
import { twinObjectServices } from '../services/twins/twin-object-service.js';
import { TwinService } from '../services/twins/twin-service.js';
import { ZoneService } from '../services/twins/zone-service.js';
import { AttachmentService } from '../services/uploads/attachment-service.js';
import { BundleService } from '../services/uploads/bundle-service.js';
import { SiteFileService } from '../services/uploads/site-file-service.js';
import { UploadService } from '../services/uploads/upload-service.js';
import { WebhookService } from '../services/webhooks/webhook-service.js';

/**
 * The operations of one regional API, built over that region's store: the composition the HTTP
 * routes call (app.services), kept here so the HTTP layer never builds repositories itself.
 */
export interface RegionServices {
  nodes: NodeService;
  tree: NodeTreeService;
  uploads: UploadService;
  siteFiles: SiteFileService;
  bundles: BundleService;
  processing: ProcessingService;
  comparisons: ComparisonService;
  tilesets: TilesetService;
  attachments: AttachmentService;
  audit: AuditService;
  invitations: InvitationService;
  scimTokens: ScimTokenService;
  roles: RoleService;
  memberships: MembershipService;
  users: UserService;
  places: PlaceService;
  groups: GroupService;
  metadataTypes: MetadataTypeService;
  twins: TwinService;
  twinLayers: TwinLayerService;
  pointsOfInterest: ObjectKindService<'pointOfInterest'>;
  assets: ObjectKindService<'asset'>;
  measurements: ObjectKindService<'measurement'>;
  zones: ZoneService;
  modelAssets: ModelAssetService;
  objectMetadata: ObjectMetadataService;
  businessObjects: BusinessObjectSearchService;
  libraryTags: LibraryTagService;
  libraryModels: LibraryModelService;
  planning: PlanningService;
  embedSessions: EmbedSessionService;
  webhooks: WebhookService;
}

/** A region's processing lifecycles: the routes start them (regionServices), the worker moves them on (jobs/start-worker.ts). */
export interface RegionLifecycles {
  processings: ProcessingLifecycle;
  previews: ModelPreviewLifecycle;
  comparisons: ComparisonLifecycle;
}

export function regionLifecycles(platform: Platform, context: RegionContext): RegionLifecycles {
  const { clock, jobs } = platform;
  const { region, bundles, uploads, nodes, tree, outbox } = context;
  return {
    processings: new ProcessingLifecycle({ region, clock, jobs, bundles, uploads, nodes, tree, outbox }),
    previews: new ModelPreviewLifecycle({
      region,
      clock,
      jobs,
      models: context.libraryModels,
      tree,
      outbox,
      deletions: uploads,
    }),
    comparisons: new ComparisonLifecycle({
      region,
      clock,
      jobs,
      comparisons: context.comparisons,
      bundles,
      tree,
      uploads,
      outbox,
    }),
  };
}

/** A region's node reads and writes and its tree-wide changes: what the routes, the purge and `rdp admin` build on. */
export function nodeServices(platform: Platform, context: RegionContext): { nodes: NodeService; tree: NodeTreeService } {
  const { clock, config, directory } = platform;
  const nodes = new NodeService({
    clock,
    nodes: context.nodes,
    tree: context.tree,
    lists: context.lists,
    held: context.memberships,
    outbox: context.outbox,
    organizations: directory,
    maxHierarchyDepth: config.maxHierarchyDepth,
  });
  const tree = new NodeTreeService({
    clock,
    nodes,
    tree: context.tree,
    lists: context.lists,
    outbox: context.outbox,
    organizations: directory,
    inOtherRegion: async (nodeId) => {
      for (const other of platform.openedRegions()) {
        if (other.region !== context.region && (await other.nodes.findById(nodeId))) return true;
      }
      return false;
    },
    maxHierarchyDepth: config.maxHierarchyDepth,
    trashRetentionDays: config.trashRetentionDays,
  });
  return { nodes, tree };
}

/** Gives and takes roles on nodes: what the memberships API, the users API and `rdp admin` share. */
export function membershipChanges(platform: Platform, context: RegionContext): MembershipChanges {
  const { memberships, roles, tree, audit } = context;
  return new MembershipChanges({ clock: platform.clock, members: platform.members, memberships, roles, tree, audit });
}

/** SCIM tokens, listed and changed by the organization's administrators (nodes) or `rdp admin`. */
export function scimTokenService(platform: Platform, nodes: NodeAccess): ScimTokenService {
  return new ScimTokenService({
    clock: platform.clock,
    nodes,
    tokens: platform.scimTokens,
    organizations: platform.directory,
    auditIn: (region) => platform.region(region),
    scimUrl: scimBaseUrl(platform.config.publicUrl),
  });
}

/** A region's people and permissions (memberships, roles, users, groups, invitations, the audit trail) and its webhooks. */
function peopleServices(platform: Platform, context: RegionContext, nodes: NodeService) {
  const { clock, config, directory, members } = platform;
  const { audit, transaction } = context;
  const changes = membershipChanges(platform, context);
  return {
    audit: new AuditService(nodes, audit),
    invitations: new InvitationService({
      clock,
      nodes,
      invitations: context.invitations,
      nodeRows: context.nodes,
      roles: context.roles,
      memberships: context.memberships,
      audit,
      organizations: directory,
      members,
      mailer: platform.mailer,
      publicUrl: config.publicUrl,
    }),
    scimTokens: scimTokenService(platform, nodes),
    roles: new RoleService({ clock, nodes, roles: context.roles, audit, transaction }),
    memberships: new MembershipService({ nodes, changes, memberships: context.memberships, members }),
    users: new UserService({
      clock,
      nodes,
      members,
      users: platform.users,
      administrators: changes,
      audit,
      transaction,
      principalChanged: (userId) => platform.principalChanges.changed(userId),
      forgetApplication: (clientId, serviceUserId) => platform.recentDirectory.forgetApplication(clientId, serviceUserId),
    }),
    places: new PlaceService(context.memberships),
    groups: new GroupService({ clock, nodes, groups: context.groups, people: members, audit, transaction }),
    webhooks: new WebhookService({
      clock,
      nodes,
      webhooks: context.webhooks,
      outbox: context.outbox,
      transaction,
      allowPrivateAddresses: config.webhooks.allowPrivate,
      secretsKey: platform.secrets.webhookSecrets,
    }),
  };
}

export function regionServices(platform: Platform, region: Region): RegionServices {
  const context = platform.region(region);
  const { nodes, tree } = nodeServices(platform, context);
  const { clock, blobs, jobs } = platform;
  const apiUrl = platform.config.regionUrls[region];
  const lifecycles = regionLifecycles(platform, context);
  const comparisonRows = context.comparisons;
  const uploads = new UploadService({
    clock,
    blobs,
    uploadExpirySeconds: platform.config.uploadExpirySeconds,
    organizations: platform.directory,
    tree: context.tree,
    uploads: context.uploads,
    libraryModels: context.libraryModels,
    comparisons: comparisonRows,
  });
  const uploadWork = { clock, uploads, storedObjects: context.uploads, tree: context.tree };
  const bundles = new BundleService({
    ...uploadWork,
    apiUrl,
    uploadExpirySeconds: platform.config.uploadExpirySeconds,
    meshMaxInputBytes: platform.config.meshMaxInputBytes,
    jobs,
    nodes,
    bundles: context.bundles,
    outbox: context.outbox,
  });
  const metadataTypes = new MetadataTypeRepository(context.store.db, context.store.dialect);
  const libraryModels = context.libraryModels;
  const twinRows = new TwinRepository(context.store.db, context.store.dialect);
  const twins = new TwinService({ clock, twins: twinRows, libraryModels, nodes, audit: context.audit, outbox: context.outbox });
  const twinObjects = twinObjectServices({ clock, twins: twinRows, drafts: twins, metadataTypes });
  const objectMetadata = new ObjectMetadataService({
    objects: twinObjects,
    twins,
    store: twinRows,
    metadataTypes,
    uploads: context.uploads,
  });
  const placements = new ModelPlacementRules({ metadataTypes, libraryModels, objectMetadata });
  const planningRows = new PlanningRepository(context.store.db, context.store.dialect);
  const planning = new PlanningService({
    clock,
    planning: planningRows,
    nodes,
    tree: context.tree,
    nodeRows: context.nodes,
    bundles: context.bundles,
    audit: context.audit,
  });
  return {
    nodes,
    tree,
    uploads,
    siteFiles: new SiteFileService({ ...uploadWork, nodes, nodeRows: context.nodes, outbox: context.outbox }),
    bundles,
    processing: new ProcessingService({
      bundles,
      uploads: context.uploads,
      organizations: platform.directory,
      lifecycle: lifecycles.processings,
    }),
    comparisons: new ComparisonService({
      clock,
      apiUrl,
      twins,
      bundles,
      comparisons: comparisonRows,
      organizations: platform.directory,
      lifecycle: lifecycles.comparisons,
      blobs,
      deletions: context.uploads,
    }),
    tilesets: new TilesetService({ blobs, storedObjects: context.uploads, nodes }),
    attachments: new AttachmentService({ ...uploadWork, twins }),
    ...peopleServices(platform, context, nodes),
    metadataTypes: new MetadataTypeService({ clock, types: metadataTypes, nodes, audit: context.audit }),
    twins,
    twinLayers: new TwinLayerService({
      clock,
      apiUrl: platform.config.regionUrls[region],
      layers: new TwinLayerRepository(context.store.db),
      tree: context.tree,
      nodes,
      twins,
      comparisons: comparisonRows,
    }),
    pointsOfInterest: new ObjectKindService({
      objects: twinObjects.pointOfInterest,
      contexts: twins,
      metadataTypes,
      references: namedZoneCheck(twinObjects.zone),
    }),
    assets: new ObjectKindService({ objects: twinObjects.asset, contexts: twins, metadataTypes }),
    measurements: new ObjectKindService({ objects: twinObjects.measurement, contexts: twins, metadataTypes }),
    zones: new ZoneService({
      zones: twinObjects.zone,
      pointsOfInterest: twinObjects.pointOfInterest,
      twins,
      store: twinRows,
      metadataTypes,
    }),
    modelAssets: new ModelAssetService({
      objects: twinObjects.modelAsset,
      twins,
      rules: placements,
      planning,
      layouts: new LayoutModelAssetService({ clock, planning: planningRows, rules: placements, twins }),
      libraryModels,
      blobs,
    }),
    objectMetadata,
    businessObjects: new BusinessObjectSearchService({
      objects: new BusinessObjectRepository(context.store.db, context.store.dialect),
      twins,
      lists: context.lists,
    }),
    libraryTags: new LibraryTagService({
      clock,
      nodes,
      tags: new LibraryTagRepository(context.store.db, context.store.dialect),
      tree: context.tree,
      audit: context.audit,
    }),
    libraryModels: new LibraryModelService({
      clock,
      apiUrl,
      blobs,
      nodes,
      uploads,
      models: context.libraryModels,
      tree: context.tree,
      deletions: context.uploads,
      audit: context.audit,
      outbox: context.outbox,
      previews: lifecycles.previews,
    }),
    planning,
    embedSessions: new EmbedSessionService({
      clock,
      publicUrl: platform.config.publicUrl,
      accessTokenTtlSeconds: platform.config.accessTokenTtlSeconds,
      sessions: context.embedSessions,
      twins,
      planning,
    }),
  };
}

/** The sessions behind the viewer pages, looked up in each region this process serves (config.regions). */
export function viewerSessions(platform: Platform): ViewerSessions {
  return new ViewerSessions({
    clock: platform.clock,
    regions: platform.config.regions.map((region) => ({ region, sessions: platform.region(region).embedSessions })),
  });
}
