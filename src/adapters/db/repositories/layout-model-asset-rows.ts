import type { PlanningLayoutRow, PlanningModelAssetRow } from '../../../domain/records/regional.js';
import type { TwinObject } from '../../../domain/twins/twin-objects.js';

/**
 * How a planning layout's model assets are stored (docs/planning.md): the fields that have
 * columns of their own in them; the others (position, rotation, scale) in `body` (JSON), the
 * metadata sections in `metadata` (JSON). Only the planning repository reads and writes these.
 */
const COLUMNS = {
  name: 'name',
  libraryModelId: 'library_model_id',
  metadataTypeId: 'metadata_type_id',
  createdBy: 'created_by',
  updatedBy: 'updated_by',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
} as const;

const COLUMN_ENTRIES = Object.entries(COLUMNS);

/** A layout's row as the model-asset routes answer it: the same object a twin's model asset is. */
export function objectOfLayoutRow(row: PlanningModelAssetRow): TwinObject<'modelAsset'> {
  const fields = JSON.parse(row.body);
  for (const [field, column] of COLUMN_ENTRIES) fields[field] = row[column];
  fields.metadata = JSON.parse(row.metadata);
  return { id: row.id, objectType: 'modelAsset', fields };
}

export function layoutRowOfObject(
  object: TwinObject<'modelAsset'>,
  layout: Pick<PlanningLayoutRow, 'id' | 'org_id' | 'project_id'>,
): PlanningModelAssetRow {
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(object.fields)) {
    if (!(field in COLUMNS) && field !== 'metadata') body[field] = value;
  }
  const { fields } = object;
  return {
    id: object.id,
    org_id: layout.org_id,
    project_id: layout.project_id,
    layout_id: layout.id,
    name: fields.name,
    body: JSON.stringify(body),
    library_model_id: fields.libraryModelId,
    metadata_type_id: fields.metadataTypeId ?? null,
    metadata: JSON.stringify(fields.metadata ?? {}),
    created_by: fields.createdBy,
    updated_by: fields.updatedBy,
    created_at: fields.createdAt,
    updated_at: fields.updatedAt,
  };
}
