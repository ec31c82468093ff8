import type { PlanningLayoutRow, PlanningModelAssetRow } from '../records/regional.js';
import type { ObjectFields, TwinObject } from '../twins/twin-objects.js';

/** The fields of a layout's model asset that have columns of their own; the others (position, rotation, scale) go into body. */
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
export function objectOfLayoutRow(row: PlanningModelAssetRow): TwinObject {
  const fields = JSON.parse(row.body) as ObjectFields;
  for (const [field, column] of COLUMN_ENTRIES) fields[field] = row[column];
  fields.metadata = JSON.parse(row.metadata);
  return { id: row.id, objectType: 'modelAsset', fields };
}

export function layoutRowOfObject(
  object: TwinObject,
  layout: Pick<PlanningLayoutRow, 'id' | 'org_id' | 'project_id'>,
): PlanningModelAssetRow {
  const body: ObjectFields = {};
  for (const [field, value] of Object.entries(object.fields)) {
    if (!(field in COLUMNS) && field !== 'metadata') body[field] = value;
  }
  const { fields } = object;
  return {
    id: object.id,
    org_id: layout.org_id,
    project_id: layout.project_id,
    layout_id: layout.id,
    name: fields.name as string,
    body: JSON.stringify(body),
    library_model_id: fields.libraryModelId as string,
    metadata_type_id: (fields.metadataTypeId ?? null) as string | null,
    metadata: JSON.stringify(fields.metadata ?? {}),
    created_by: fields.createdBy as string,
    updated_by: fields.updatedBy as string,
    created_at: fields.createdAt as string,
    updated_at: fields.updatedAt as string,
  };
}
