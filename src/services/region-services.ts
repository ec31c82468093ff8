import { BusinessObjectRepository } from '../adapters/db/repositories/business-object-repository.js';
import { EmbedSessionRepository } from '../adapters/db/repositories/embed-session-repository.js';
import { GroupRepository } from '../adapters/db/repositories/group-repository.js';
import { LibraryModelRepository } from '../adapters/db/repositories/library-model-repository.js';
import { LibraryTagRepository } from '../adapters/db/repositories/library-tag-repository.js';
import { MetadataTypeRepository } from '../adapters/db/repositories/metadata-type-repository.js';
import { PlanningRepository } from '../adapters/db/repositories/planning-repository.js';
import { TwinLayerRepository } from '../adapters/db/repositories/twin-layer-repository.js';
import { TwinRepository } from '../adapters/db/repositories/twin-repository.js';
import type { Region } from '../domain/regions.js';
import type { Platform } from '../platform.js';
import { EmbedSessionService } from './embed/embed-session-service.js';
import { LibraryModelService } from './library/library-model-service.js';
import { LibraryTagService } from './library/library-tag-service.js';
import { MetadataTypeService } from './metadata/metadata-type-service.js';
import { NodeService } from './node-service.js';
import { NodeTreeService } from './node-tree-service.js';
import { AuditService } from './people/audit-service.js';
import { GroupService } from './people/group-service.js';
import { InvitationService } from './people/invitation-service.js';
import { MembershipService } from './people/membership-service.js';
import { RoleService } from './people/role-service.js';
import { UserService } from './people/user-service.js';
import { LayoutModelAssetService } from './planning/layout-model-asset-service.js';
import { PlanningService } from './planning/planning-service.js';
import { ProcessingService } from './processing/processing-service.js';
import { TilesetService } from './processing/tileset-service.js';
import { ScimTokenService } from './scim/scim-token-service.js';
import { BusinessObjectSearchService } from './twins/business-object-search-service.js';
import { ModelAssetService } from './twins/model-asset-service.js';
import { ModelPlacementRules } from './twins/model-placement.js';
import { ObjectKindService } from './twins/object-kind-service.js';
import { ObjectMetadataService } from './twins/object-metadata-service.js';
import { namedZoneCheck } from './twins/point-of-interest-rules.js';
import { TwinLayerService } from './twins/twin-layer-service.js';
import { twinObjectServices } from './twins/twin-object-service.js';
import { TwinService } from './twins/twin-service.js';
import { ZoneService } from './twins/zone-service.js';
import { AttachmentService } from './uploads/attachment-service.js';
import { BundleService } from './uploads/bundle-service.js';
import { SiteFileService } from './uploads/site-file-service.js';
import { UploadService } from './uploads/upload-service.js';
import { WebhookService } from './webhooks/webhook-service.js';

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
  tilesets: TilesetService;
  attachments: AttachmentService;
  audit: AuditService;
  invitations: InvitationService;
  scimTokens: ScimTokenService;
  roles: RoleService;
  memberships: MembershipService;
  users: UserService;
  groups: GroupService;
  metadataTypes: MetadataTypeService;
  twins: TwinService;
  twinLayers: TwinLayerService;
  pointsOfInterest: ObjectKindService<'pointOfInterest'>;
  assets: ObjectKindService<'asset'>;
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

export function regionServices(platform: Platform, region: Region): RegionServices {
  const context = platform.region(region);
  const nodes = new NodeService(platform, context);
  const uploads = new UploadService(platform, context, context.uploads);
  const bundles = new BundleService(platform, context, nodes, uploads, context.bundles);
  const memberships = new MembershipService(platform, context, nodes);
  const metadataTypes = new MetadataTypeRepository(context.store.db, context.store.dialect);
  const libraryModels = new LibraryModelRepository(context.store.db, context.store.dialect);
  const { clock } = platform;
  const twinRows = new TwinRepository(context.store.db, context.store.dialect);
  const twins = new TwinService({ clock, twins: twinRows, libraryModels, nodes, audit: context.audit, outbox: context.outbox });
  const twinObjects = twinObjectServices({ clock, twins: twinRows, drafts: twins });
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
    tree: new NodeTreeService(platform, context, nodes),
    uploads,
    siteFiles: new SiteFileService(platform, context, nodes, uploads),
    bundles,
    processing: new ProcessingService(platform, context, bundles, uploads),
    tilesets: new TilesetService(platform, context, nodes),
    attachments: new AttachmentService(platform, context, uploads, twins),
    audit: new AuditService(context, nodes),
    invitations: new InvitationService(platform, context, nodes),
    scimTokens: new ScimTokenService(platform, nodes),
    roles: new RoleService(platform, context, nodes),
    memberships,
    users: new UserService(platform, context, nodes, memberships.changes),
    groups: new GroupService(platform, context, nodes, new GroupRepository(context.store.db, context.store.dialect)),
    metadataTypes: new MetadataTypeService({ clock, types: metadataTypes, nodes, audit: context.audit }),
    twins,
    twinLayers: new TwinLayerService({
      clock,
      apiUrl: platform.config.regionUrls[region],
      layers: new TwinLayerRepository(context.store.db),
      tree: context.tree,
      nodes,
      twins,
    }),
    pointsOfInterest: new ObjectKindService({
      objects: twinObjects.pointOfInterest,
      contexts: twins,
      metadataTypes,
      references: namedZoneCheck(twinObjects.zone),
    }),
    assets: new ObjectKindService({ objects: twinObjects.asset, contexts: twins, metadataTypes }),
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
    }),
    objectMetadata,
    businessObjects: new BusinessObjectSearchService({
      objects: new BusinessObjectRepository(context.store.db, context.store.dialect),
      twins,
      lists: context.lists,
    }),
    libraryTags: new LibraryTagService(
      platform,
      context,
      nodes,
      new LibraryTagRepository(context.store.db, context.store.dialect),
    ),
    libraryModels: new LibraryModelService(
      platform,
      context,
      nodes,
      uploads,
      new LibraryModelRepository(context.store.db, context.store.dialect),
    ),
    planning,
    embedSessions: new EmbedSessionService({
      clock,
      publicUrl: platform.config.publicUrl,
      accessTokenTtlSeconds: platform.config.accessTokenTtlSeconds,
      sessions: new EmbedSessionRepository(context.store.db),
      twins,
      planning,
    }),
    webhooks: new WebhookService(platform, context, nodes),
  };
}
