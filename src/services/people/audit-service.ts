import type { AuditFilter, AuditRepository } from '../../adapters/db/repositories/audit-repository.js';
import type { AuditEventRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import type { ListPage } from '../../domain/listing/cursor.js';
import type { NodeAccess } from '../node-service.js';

/** The audit trail as an organization's administrators read it. */
export class AuditService {
  constructor(
    private readonly nodes: NodeAccess,
    private readonly audit: AuditRepository,
  ) {}

  async list(principal: Principal, filter: AuditFilter, page: ListPage): Promise<AuditEventRow[]> {
    await this.nodes.authorize(principal, principal.orgId, 'manage');
    return this.audit.list(principal.orgId, filter, page.limit, page.offset, page.after);
  }
}
