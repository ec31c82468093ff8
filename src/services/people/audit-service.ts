import type { AuditFilter } from '../../adapters/db/repositories/audit-repository.js';
import type { AuditEventRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import type { ListPage } from '../../domain/listing/cursor.js';
import type { RegionContext } from '../../platform.js';
import type { NodeService } from '../node-service.js';

/** The audit trail as an organization's administrators read it. */
export class AuditService {
  constructor(
    private readonly region: RegionContext,
    private readonly nodes: NodeService,
  ) {}

  async list(principal: Principal, filter: AuditFilter, page: ListPage): Promise<AuditEventRow[]> {
    await this.nodes.authorize(principal, principal.orgId, 'manage');
    return this.region.audit.list(principal.orgId, filter, page.limit, page.offset, page.after);
  }
}
