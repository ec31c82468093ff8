import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { PageTitle } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { kindOf } from '../twin/object-kinds.js';
import { listMetadataTypes, type MetadataType } from '../twin/twin-api.js';
import { managesMetadataTypes } from './metadata-rights.js';
import { MetadataTypeDialog } from './metadata-type-dialog.js';
import './metadata.css';

type OpenDialog = { kind: 'create' } | { kind: 'edit'; type: MetadataType } | { kind: 'delete'; type: MetadataType };

/**
 * The organization's metadata types (/metadata-types): each with the kinds of object it applies
 * to and its sections; creating, changing and deleting for those who manage the organization.
 */
export function MetadataTypesView() {
  const session = useSession();
  const types = useResource(() => listMetadataTypes(session), []);
  const manager = useResource(() => managesMetadataTypes(session), []).data === true;
  const [dialog, setDialog] = useState<OpenDialog>();
  const [notice, setNotice] = useState<string>();

  function changed(message: string) {
    setDialog(undefined);
    setNotice(message);
    types.reload();
  }

  return (
    <section class="metadata-types">
      <PageTitle
        actions={
          manager && (
            <button type="button" onClick={() => setDialog({ kind: 'create' })}>
              New metadata type
            </button>
          )
        }
      >
        Metadata types
      </PageTitle>
      <p class="muted">
        A metadata type names the properties the objects of a twin hold, by section. An object without one holds free metadata
        instead.
      </p>
      {notice && (
        <p class="notice success" role="status">
          {notice}
        </p>
      )}
      {!types.data ? (
        <LoadingOrError error={types.error} />
      ) : types.data.length === 0 ? (
        <p>The organization has no metadata type yet.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Metadata types of the organization</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Applies to</th>
              <th scope="col">Properties</th>
              {manager && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {types.data.map((type) => (
              <tr key={type.id}>
                <td>{type.name}</td>
                <td>{type.appliesTo.map((kind) => kindOf(kind)?.word ?? kind).join(', ')}</td>
                <td>{propertiesInWords(type)}</td>
                {manager && (
                  <td class="row-actions">
                    <button type="button" class="quiet" onClick={() => setDialog({ kind: 'edit', type })}>
                      Edit {type.name}
                    </button>
                    <button type="button" class="quiet danger-text" onClick={() => setDialog({ kind: 'delete', type })}>
                      Delete {type.name}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(dialog?.kind === 'create' || dialog?.kind === 'edit') && (
        <MetadataTypeDialog
          type={dialog.kind === 'edit' ? dialog.type : undefined}
          onSaved={(type) =>
            changed(dialog.kind === 'edit' ? `Metadata type ${type.name} saved.` : `Metadata type ${type.name} created.`)
          }
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete the metadata type ${dialog.type.name}?`}
          confirm={`Delete ${dialog.type.name}`}
          danger
          onClose={() => setDialog(undefined)}
          action={async () => {
            const { type } = dialog;
            await ok(
              session.api.DELETE('/v1/metadata-types/{metadataTypeId}', { params: { path: { metadataTypeId: type.id } } }),
            );
            changed(`Metadata type ${type.name} deleted.`);
          }}
        >
          <p>A type that objects still use cannot be deleted: give them another type or none first.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** "3 properties in 2 sections (Maintenance, Location)". */
function propertiesInWords(type: MetadataType): string {
  const sections = [...new Set(type.properties.map((property) => property.section))];
  const count = type.properties.length;
  if (count === 0) return 'None';
  return `${count} propert${count === 1 ? 'y' : 'ies'} in ${sections.length === 1 ? 'one section' : `${sections.length} sections`} (${sections.join(', ')})`;
}
