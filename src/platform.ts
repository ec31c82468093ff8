import { FilesystemBlobStore } from './adapters/blobs/filesystem-blob-store.js';
import { openBlobStore } from './adapters/blobs/open-blob-store.js';
import { type InTransaction, openStores, type Store, type Stores, transactionsOf } from './adapters/db/database.js';
import { AuditRepository } from './adapters/db/repositories/audit-repository.js';
import { BundleRepository } from './adapters/db/repositories/bundle-repository.js';
import { ComparisonRepository } from './adapters/db/repositories/comparison-repository.js';
import { DirectoryRepository } from './adapters/db/repositories/directory-repository.js';
import { EmbedSessionRepository } from './adapters/db/repositories/embed-session-repository.js';
import { GroupRepository } from './adapters/db/repositories/group-repository.js';
import { InvitationRepository } from './adapters/db/repositories/invitation-repository.js';
import { LibraryModelRepository } from './adapters/db/repositories/library-model-repository.js';
import { MembershipRepository } from './adapters/db/repositories/membership-repository.js';
import { NodeListRepository } from './adapters/db/repositories/node-list-repository.js';
import { NodeRepository } from './adapters/db/repositories/node-repository.js';
import { NodeTreeRepository } from './adapters/db/repositories/node-tree-repository.js';
import { OrganizationMemberRepository } from './adapters/db/repositories/organization-member-repository.js';
import { RoleRepository } from './adapters/db/repositories/role-repository.js';
import { ScimGroupRepository } from './adapters/db/repositories/scim-group-repository.js';
import { ScimTokenRepository } from './adapters/db/repositories/scim-token-repository.js';
import { ScimUserRepository } from './adapters/db/repositories/scim-user-repository.js';
import { ServerSecretRepository } from './adapters/db/repositories/server-secret-repository.js';
import { SessionRepository } from './adapters/db/repositories/session-repository.js';
import { TokenRepository } from './adapters/db/repositories/token-repository.js';
import { UploadRepository } from './adapters/db/repositories/upload-repository.js';
import { UserRepository } from './adapters/db/repositories/user-repository.js';
import { WebhookRepository } from './adapters/db/repositories/webhook-repository.js';
import type { GlobalSchema, RegionalSchema } from './adapters/db/schema.js';
import { openJobStore } from './adapters/jobs/open-job-store.js';
import { openLimiterStore } from './adapters/limits/limiter-store.js';
import { openMailer } from './adapters/mail/open-mailer.js';
import type { Config } from './config/config.js';
import { ApiError } from './domain/errors.js';
import { REGIONS, type Region } from './domain/regions.js';
import { PrincipalChanges } from './oauth/principal-changes.js';
import { RecentDirectory } from './oauth/recent-directory.js';
import type { BlobStore, EmbeddedBlobEndpoint } from './ports/blob-store.js';
import { type Clock, systemClock } from './ports/clock.js';
import type { JobStore } from './ports/job-queue.js';
import type { LimiterStore } from './ports/limiter-store.js';
import type { Mailer } from './ports/mailer.js';
import { OutboxSignal } from './services/webhooks/outbox-signal.js';
import { WebhookOutbox } from './services/webhooks/webhook-outbox.js';

/** One region's store and the repositories over it. */
export interface RegionContext {
  region: Region;
  store: Store<RegionalSchema>;
  /** One transaction of the region's store, for a change that spans several repositories. */
  transaction: InTransaction<RegionalSchema>;
  nodes: NodeRepository;
  tree: NodeTreeRepository;
  /** The trash and browse by cursor: lists whose cost follows the page, not the organization. */
  lists: NodeListRepository;
  /** What layers 2 and 3 of the access checks read: roles and the memberships that give them. */
  roles: RoleRepository;
  memberships: MembershipRepository;
  /** Groups and their members; what only SCIM reads and writes of them (its groups, members in batches). */
  groups: GroupRepository;
  scimGroups: ScimGroupRepository;
  invitations: InvitationRepository;
  /** Embed sessions: the region's API and the viewer pages (which find a session in any served region). */
  embedSessions: EmbedSessionRepository;
  /** Stored objects, upload sessions and the blob deletion queue; bundles and their processings: the worker's too. */
  uploads: UploadRepository;
  bundles: BundleRepository;
  /** The asset library's models: their bytes count against the quota; the preview worker writes them. */
  libraryModels: LibraryModelRepository;
  /** Comparisons of scans: their outputs' bytes count against the quota too. */
  comparisons: ComparisonRepository;
  /** The trail of changes to people and permissions. */
  audit: AuditRepository;
  /** Webhook endpoints, events and deliveries. */
  webhooks: WebhookRepository;
  /** How a service reports a change to webhooks, inside its transaction (docs/webhooks.md). */
  outbox: WebhookOutbox;
}

/** What the HTTP roles, the worker and the admin command line share: config, clock and stores. */
export interface Platform {
  config: Config;
  clock: Clock;
  stores: Stores;
  directory: DirectoryRepository;
  /** One transaction of the global store. */
  globalTransaction: InTransaction<GlobalSchema>;
  /** Users' own rows (names, e-mail, activation) and what SCIM writes of them. */
  users: UserRepository;
  scimUsers: ScimUserRepository;
  /** The tokens organizations' identity providers call /scim/v2 with. */
  scimTokens: ScimTokenRepository;
  /** Users as organizations see them: their places, deactivation and seats. */
  members: OrganizationMemberRepository;
  /** Applications and users at most a second old, for the token endpoint's every request. */
  recentDirectory: RecentDirectory;
  /** Deactivations and removals made in this process, for its token caches. */
  principalChanges: PrincipalChanges;
  /** Writes to the regions' webhook outboxes made in this process, for its dispatcher. */
  outboxSignal: OutboxSignal;
  tokens: TokenRepository;
  /** Signed-in sessions of the consent and settings pages. */
  sessions: SessionRepository;
  /**
   * The regions whose stores this process opened (storesFor): config.regions in a server, all
   * four in the command line. Read them through region() and openedRegions(), never by looping
   * over REGIONS: a process of one region has no store for the others.
   */
  regions: Partial<Record<Region, RegionContext>>;
  /** An opened region's context; a region this process did not open is 421 RegionNotServed. */
  region(name: Region): RegionContext;
  /** Every opened region's context, in REGIONS order: what loops over regions go through. */
  openedRegions(): RegionContext[];
  /** Keys generated once per deployment and shared by every copy through the global store. */
  secrets: PlatformSecrets;
  /** Upload and derivative bytes. */
  blobs: BlobStore;
  /** The filesystem store, whose signed addresses this process serves (http/blob-routes.ts); none with S3. */
  blobEndpoint: EmbeddedBlobEndpoint | undefined;
  /**
   * Opens the store of the request buckets and sign-in counters: this process's memory, or Redis
   * (RDP_REDIS_URL) shared by every copy. The serving roles open one each.
   */
  openLimiterStore(onError: (error: Error) => void): Promise<LimiterStore>;
  /** The durable job queue: the API side enqueues, the worker (src/jobs/worker.ts) runs. */
  jobs: JobStore;
  /** Outgoing mail: SMTP (RDP_SMTP_URL) or the store's outbox. */
  mailer: Mailer;
  close(): Promise<void>;
}

export interface PlatformSecrets {
  /** Seals refresh tokens (src/oauth/refresh-tokens.ts). */
  refreshTokens: Buffer;
  /** Signs the embedded blob endpoint's upload and download addresses. */
  blobUrls: Buffer;
  /** Seals webhook signing secrets in the regional stores (crypto/sealed-text.ts). */
  webhookSecrets: Buffer;
}

export interface PlatformOptions {
  /** Errors the job queue meets on its own (pg-boss: its pool and its maintenance), for the log. */
  onJobStoreError?: (error: Error) => void;
  /** Connections of the stores' pools lost while idle (a restart or failover of PostgreSQL), for the log. */
  onStoreError?: (error: Error) => void;
  /** What to open; default: what config.roles and config.regions need (storesFor). The command line opens everything. */
  opens?: PlatformOpening;
}

/** The stores one process opens. */
export interface PlatformOpening {
  regions: readonly Region[];
  /** The job queue: where the api role enqueues or the worker role runs. */
  jobs: boolean;
}

/**
 * What a process's roles need (docs/design/processes.md#roles). The global store always: every role
 * reads organizations, users, keys and revocations from it. Regional stores: an api process only
 * those of the regions it serves (config.regions). The auth and worker roles serve every
 * organization of the deployment, so they open every region: the invitation pages find an
 * invitation by its link alone and SCIM writes groups and memberships in the organization's region;
 * the job queue is one for the deployment and a worker runs whatever job it claims (per-region
 * workers would need per-region queues). The job queue only where the api role enqueues or the
 * worker runs.
 */
export function storesFor(config: Config): PlatformOpening {
  const { roles } = config;
  return {
    regions: roles.has('auth') || roles.has('worker') ? REGIONS : config.regions,
    jobs: roles.has('api') || roles.has('worker'),
  };
}

/** Everything, whatever the roles: the command line works on any region and on the queue. */
export const EVERYTHING: PlatformOpening = { regions: REGIONS, jobs: true };

export async function openPlatform(config: Config, clock: Clock = systemClock, options: PlatformOptions = {}): Promise<Platform> {
  const opening = options.opens ?? storesFor(config);
  const stores = await openStores(config, { regions: opening.regions, onError: options.onStoreError });
  const regions: Partial<Record<Region, RegionContext>> = {};
  const outboxSignal = new OutboxSignal();
  for (const region of opening.regions) {
    const store = stores.regions[region];
    if (!store) continue;
    const webhooks = new WebhookRepository(store.db);
    regions[region] = {
      region,
      store,
      transaction: transactionsOf(store.db),
      nodes: new NodeRepository(store.db, store.dialect, store),
      tree: new NodeTreeRepository(store.db, store.dialect),
      lists: new NodeListRepository(store.db, store.dialect),
      roles: new RoleRepository(store.db, store.dialect),
      memberships: new MembershipRepository(store.db, store.dialect),
      groups: new GroupRepository(store.db, store.dialect),
      scimGroups: new ScimGroupRepository(store.db),
      invitations: new InvitationRepository(store.db),
      embedSessions: new EmbedSessionRepository(store.db),
      uploads: new UploadRepository(store.db, store.dialect),
      bundles: new BundleRepository(store.db, store.dialect, store),
      libraryModels: new LibraryModelRepository(store.db, store.dialect),
      comparisons: new ComparisonRepository(store.db),
      audit: new AuditRepository(store.db),
      webhooks,
      outbox: new WebhookOutbox(region, webhooks, clock, outboxSignal),
    };
  }
  const directory = new DirectoryRepository(stores.global.db);
  const serverSecrets = new ServerSecretRepository(stores.global.db);
  const now = clock.now().toISOString();
  const secrets: PlatformSecrets = {
    refreshTokens: await serverSecrets.secret('refresh-tokens', now),
    blobUrls: await serverSecrets.secret('blob-urls', now),
    webhookSecrets: await serverSecrets.secret('webhook-secrets', now),
  };
  // Every copy signs and checks the embedded endpoint's addresses with the shared key, unless one is configured.
  const blobs = await openBlobStore(config, config.blobs.signingKey ?? secrets.blobUrls, clock);
  let jobs: JobStore;
  try {
    jobs = opening.jobs ? await openJobStore({ config, clock, stores }, options.onJobStoreError) : noJobStore();
  } catch (error) {
    await blobs.close();
    await stores.close();
    throw error;
  }
  const recentDirectory = new RecentDirectory(directory);
  const principalChanges = new PrincipalChanges();
  principalChanges.subscribe((userId) => recentDirectory.forgetUser(userId));
  const mailer = await openMailer(config.mail, stores.global.db, clock);
  const opened = REGIONS.flatMap((region) => regions[region] ?? []);
  return {
    config,
    clock,
    stores,
    directory,
    globalTransaction: transactionsOf(stores.global.db),
    users: new UserRepository(stores.global.db),
    scimUsers: new ScimUserRepository(stores.global.db),
    scimTokens: new ScimTokenRepository(stores.global.db),
    members: new OrganizationMemberRepository(stores.global.db, stores.global.dialect),
    recentDirectory,
    principalChanges,
    outboxSignal,
    tokens: new TokenRepository(stores.global.db),
    sessions: new SessionRepository(stores.global.db),
    regions,
    region(name) {
      const context = regions[name];
      if (!context) throw new ApiError('RegionNotServed', `This process does not serve the region ${name} (RDP_REGIONS)`);
      return context;
    },
    openedRegions: () => opened,
    secrets,
    blobs,
    blobEndpoint: blobs instanceof FilesystemBlobStore ? blobs : undefined,
    openLimiterStore: (onError) => openLimiterStore(config, onError),
    jobs,
    mailer,
    async close() {
      await mailer.close();
      await jobs.close();
      await blobs.close();
      await stores.close();
    },
  };
}

/** The queue of a process whose roles never use one (auth alone): any use is a programming error. */
function noJobStore(): JobStore {
  const absent = () =>
    Promise.reject(new Error('this process opened no job queue: its roles (RDP_ROLES) include neither api nor worker'));
  return {
    enqueue: absent,
    get: absent,
    countByState: absent,
    claim: absent,
    heartbeat: absent,
    succeed: absent,
    fail: absent,
    release: absent,
    failStale: absent,
    registerWorker: absent,
    unregisterWorker: absent,
    listWorkers: absent,
    pruneWorkers: absent,
    capacity: absent,
    onEnqueued: () => () => undefined,
    close: () => Promise.resolve(),
  };
}
