import type { Transaction } from 'kysely';
import type { MetadataTypeRepository } from '../../adapters/db/repositories/metadata-type-repository.js';
import type { TwinRepository } from '../../adapters/db/repositories/twin-repository.js';
import type { UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { RegionalSchema } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { applyFreeMetadataPatch } from '../../domain/metadata/free-metadata.js';
import { isJsonObject } from '../../domain/metadata/merge-patch.js';
import { definitionOf, type FieldError } from '../../domain/metadata/metadata-types.js';
import {
  ATTACHMENT_VALUE_TYPE,
  type AttachmentValue,
  applyMetadataPatch,
  type MetadataPatchResult,
  type MetadataSections,
} from '../../domain/metadata/metadata-values.js';
import { TWIN_OBJECT_KINDS } from '../../domain/twins/object-kinds.js';
import type { TwinObject, TwinObjectType } from '../../domain/twins/twin-objects.js';
import type { TwinObjectService, TwinObjectServices } from './twin-object-service.js';
import type { TwinContext, TwinService } from './twin-service.js';

type Tx = Transaction<RegionalSchema>;

/** An object's metadata as answered: its sections, the type they were checked against, its last change. */
export interface ObjectMetadataView {
  objectId: string;
  objectType: TwinObjectType;
  metadataTypeId: string | null;
  sections: MetadataSections;
  updatedAt: string;
}

export interface ObjectMetadataServiceOptions {
  objects: TwinObjectServices;
  twins: Pick<TwinService, 'context'>;
  /** Which kind an id is: the draft's change to it, else its live row. */
  store: Pick<TwinRepository, 'change' | 'objectsByIds'>;
  metadataTypes: Pick<MetadataTypeRepository, 'hold'>;
  /** Attachments set as values must be the site's. */
  uploads: Pick<UploadRepository, 'findObject'>;
}

/** At most this many failures named in one answer; the rest are left to the next try. */
const MAX_NAMED_FAILURES = 20;

/** field: where the sections are in the request (body.sections here, body.metadata in a model asset's PATCH). */
function failure(errors: FieldError[], field = 'body.sections'): ApiError {
  const named = errors
    .slice(0, MAX_NAMED_FAILURES)
    .map((error) => `${field}${error.path.slice('sections'.length)}: ${error.message}`);
  if (errors.length > MAX_NAMED_FAILURES) named.push(`and ${errors.length - MAX_NAMED_FAILURES} more`);
  return validationError(named.join('; '));
}

function view(object: TwinObject): ObjectMetadataView {
  const { fields } = object;
  return {
    objectId: object.id,
    objectType: object.objectType,
    metadataTypeId: fields.metadataTypeId ?? null,
    sections: fields.metadata ?? {},
    updatedAt: fields.updatedAt,
  };
}

/**
 * Object metadata of any kind of twin object (docs/design/metadata.md#object-metadata,
 * docs/twins.md): read as the context shows the object, changed by a JSON Merge Patch of its
 * sections checked against the object's metadata type, or as free sections when it has none. Through a draft the new sections go into the
 * draft's change, with the type they were checked against, and the live twin is untouched until the
 * publish.
 */
export class ObjectMetadataService {
  private readonly objects: TwinObjectServices;
  private readonly twins: ObjectMetadataServiceOptions['twins'];
  private readonly store: ObjectMetadataServiceOptions['store'];
  private readonly metadataTypes: ObjectMetadataServiceOptions['metadataTypes'];
  private readonly uploads: ObjectMetadataServiceOptions['uploads'];

  constructor(options: ObjectMetadataServiceOptions) {
    this.objects = options.objects;
    this.twins = options.twins;
    this.store = options.store;
    this.metadataTypes = options.metadataTypes;
    this.uploads = options.uploads;
  }

  /** `onlyKind`: the deprecated asset route, to which another kind's id is 404 like a missing one. */
  async get(principal: Principal, contextId: string, objectId: string, onlyKind?: TwinObjectType): Promise<ObjectMetadataView> {
    const context = await this.twins.context(principal, contextId, 'read');
    const objects = await this.objectsOf(context, objectId, onlyKind);
    return view(await objects.get(context, objectId));
  }

  async update(
    principal: Principal,
    contextId: string,
    objectId: string,
    patch: Record<string, unknown>,
    onlyKind?: TwinObjectType,
  ): Promise<ObjectMetadataView> {
    const context = await this.twins.context(principal, contextId, 'edit');
    const objects = await this.objectsOf(context, objectId, onlyKind);
    const updated = await objects.updateWith(principal, context, objectId, 'metadata-updated', false, async (current, tx) => {
      const typeId = current.fields.metadataTypeId;
      const sections = await this.patchedSections(tx, principal, context.site.id, typeId, current.fields.metadata, patch);
      return {
        // The type goes with the values into a draft's change: a publish never pairs them with another type.
        changes: { metadata: sections, metadataTypeId: typeId },
        details: { name: current.fields.name, metadataTypeId: typeId, sections: Object.keys(patch) },
      };
    });
    return view(updated);
  }

  /**
   * In a write's transaction: the sections after the merge patch, checked against the metadata
   * type typeId (its row held, so that its deletion takes turns with this write) or, for an object
   * without a type (typeId null), as free sections (docs/twins.md, "Free metadata"); their new
   * attachments against the site's (the context's site; a planning layout's, its project's site);
   * 400 naming `<field>.<section>.<property>` (or `<field>`) otherwise. A model asset's PATCH uses
   * it for its `metadata` field (field body.metadata).
   */
  async patchedSections(
    tx: Tx,
    principal: Principal,
    siteId: string,
    typeId: unknown,
    current: unknown,
    patch: Record<string, unknown>,
    field = 'body.sections',
  ): Promise<MetadataSections> {
    const sections = (current ?? {}) as MetadataSections;
    let result: MetadataPatchResult;
    if (typeof typeId !== 'string') result = applyFreeMetadataPatch(sections, patch);
    else {
      const type = await this.metadataTypes.hold(tx, principal.orgId, typeId);
      // Only for rows written before a type in use could not be deleted (docs/twins.md).
      if (!type) throw validationError(`${field}: the object's metadata type ${typeId} no longer exists`);
      result = applyMetadataPatch(definitionOf(type), sections, patch);
    }
    if (!result.ok) throw failure(result.errors, field);
    await this.checkAttachments(tx, siteId, patch, result.sections, field);
    return result.sections;
  }

  /** The kind's objects the id is one of, as the context shows it; 404 when it shows none (or one of another kind than onlyKind). */
  private async objectsOf(
    context: TwinContext,
    id: string,
    onlyKind?: TwinObjectType,
  ): Promise<TwinObjectService<TwinObjectType>> {
    const change = context.draft ? await this.store.change(context.draft.id, id) : undefined;
    const type = change?.objectType ?? (await this.store.objectsByIds(context.site.id, [id]))[0]?.objectType;
    if (onlyKind !== undefined && type !== onlyKind) throw new ApiError('NotFound', TWIN_OBJECT_KINDS[onlyKind].notFound);
    if (type === undefined || !(type in this.objects)) throw new ApiError('NotFound', 'Object not found');
    return this.objects[type];
  }

  /**
   * Each attachment the patch sets must be one finalized on the site (a draft's attachments are
   * its site's); 400 naming the property otherwise. Values kept from before were checked when
   * they were set, and an attachment leaves only with its site.
   */
  private async checkAttachments(
    tx: Tx,
    siteId: string,
    patch: Record<string, unknown>,
    sections: MetadataSections,
    field: string,
  ) {
    const errors: FieldError[] = [];
    for (const [sectionName, patched] of Object.entries(patch)) {
      if (!isJsonObject(patched)) continue;
      for (const propertyName of Object.keys(patched)) {
        const value = sections[sectionName]?.[propertyName];
        if (!isJsonObject(value) || value._p3d_type !== ATTACHMENT_VALUE_TYPE) continue;
        const path = `sections.${sectionName}.${propertyName}`;
        const { id } = value as AttachmentValue;
        const row = await this.uploads.findObject(id, tx);
        if (row?.purpose !== 'attachment' || row.parent_id !== siteId) {
          errors.push({ path, message: `no attachment ${id} in this context` });
        } else if (row.state !== 'finalized') {
          errors.push({ path, message: `attachment ${id} is not finalized: finalize its upload first` });
        }
      }
    }
    if (errors.length > 0) throw failure(errors, field);
  }
}
