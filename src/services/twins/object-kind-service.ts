import type { Transaction } from 'kysely';
import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import type { CreateOf, FieldsOf, Patch, TwinObject, TwinObjectType } from '../../domain/twins/twin-objects.js';
import { checkMetadataTypeApplies } from './metadata-type-check.js';
import type { TwinObjectService } from './twin-object-service.js';
import type { TwinContext, TwinService } from './twin-service.js';

type Tx = Transaction<RegionalSchema>;

/**
 * A kind's rules that read the twin (e.g. a point of interest's zone must be one the context
 * shows): run before the write, so the usual refusal costs no lock, and again in the write's
 * transaction (tx), with the twin's row held when the kind's locksTwin says so.
 */
export type ReferenceCheck<K extends TwinObjectType> = (context: TwinContext, fields: Patch<K>, tx?: Tx) => Promise<void>;

export interface ObjectKindServiceOptions<K extends TwinObjectType> {
  objects: TwinObjectService<K>;
  contexts: Pick<TwinService, 'context'>;
  metadataTypes: Pick<MetadataTypeRepository, 'find' | 'hold'>;
  references?: ReferenceCheck<K>;
}

/**
 * The five operations of a kind of twin object through a {ctx} (docs/design/twin-objects.md,
 * docs/twins.md), for a kind whose rules are its fields' (src/domain/twins/kinds/) and, perhaps,
 * the references it makes: reading needs read on the site, writing edit. The schema checks the
 * body's shape and bounds; here the rest: the kind's defaults and normalised values, the
 * references, and a metadataTypeId naming a metadata type of the organization for the kind (400
 * naming the field). Assets and points of interest are such kinds; zones and model assets have
 * services of their own (ZoneService, ModelAssetService).
 */
export class ObjectKindService<K extends TwinObjectType> {
  private readonly objects: TwinObjectService<K>;
  private readonly contexts: ObjectKindServiceOptions<K>['contexts'];
  private readonly metadataTypes: ObjectKindServiceOptions<K>['metadataTypes'];
  private readonly references: ReferenceCheck<K> | undefined;

  constructor(options: ObjectKindServiceOptions<K>) {
    this.objects = options.objects;
    this.contexts = options.contexts;
    this.metadataTypes = options.metadataTypes;
    this.references = options.references;
  }

  async list(principal: Principal, contextId: string, limit: number, offset: number): Promise<TwinObject<K>[]> {
    return this.objects.list(await this.contexts.context(principal, contextId, 'read'), limit, offset);
  }

  async get(principal: Principal, contextId: string, id: string): Promise<TwinObject<K>> {
    return this.objects.get(await this.contexts.context(principal, contextId, 'read'), id);
  }

  async create(principal: Principal, contextId: string, input: CreateOf<K>): Promise<TwinObject<K>> {
    const context = await this.contexts.context(principal, contextId, 'edit');
    const fields = this.objects.kind.newFields(input);
    await this.check(principal, context, fields);
    return this.objects.create(principal, context, fields, this.inTx(context, fields));
  }

  /** dropUnfitting: free sections that do not fit a type the PATCH gives are dropped instead of refused (TwinObjectService.update). */
  async update(
    principal: Principal,
    contextId: string,
    id: string,
    input: Partial<FieldsOf<K>> & { dropUnfitting?: boolean },
  ): Promise<TwinObject<K>> {
    const context = await this.contexts.context(principal, contextId, 'edit');
    const { dropUnfitting, ...fields } = input;
    const changes = this.objects.kind.changes(fields as Partial<FieldsOf<K>>);
    await this.check(principal, context, changes);
    return this.objects.update(principal, context, id, changes, { checkInTx: this.inTx(context, changes), dropUnfitting });
  }

  async delete(principal: Principal, contextId: string, id: string): Promise<void> {
    await this.objects.delete(principal, await this.contexts.context(principal, contextId, 'edit'), id);
  }

  /** The references first, then the metadata type: checked outside the write. */
  private async check(principal: Principal, context: TwinContext, fields: Patch<K>): Promise<void> {
    if (this.references) await this.references(context, fields);
    await checkMetadataTypeApplies(this.metadataTypes, principal, fields.metadataTypeId, this.objects.kind);
  }

  private inTx(context: TwinContext, fields: Patch<K>): ((tx: Tx) => Promise<void>) | undefined {
    const { references } = this;
    return references && ((tx) => references(context, fields, tx));
  }
}
