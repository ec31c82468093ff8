import { ok } from '@reality-data-platform/sdk/browser';
import { useEffect, useRef } from 'preact/hooks';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { FreeMetadataForm, FreeMetadataValues } from './free-metadata-form.js';
import { MetadataTypeChoice } from './metadata-type-choice.js';
import type { Attachment } from './metadata-values.js';
import { ObjectAttachments } from './object-attachments.js';
import { TWIN_OBJECT_KINDS } from './object-kinds.js';
import type { MetadataType, Selection, TwinContext } from './twin-api.js';
import { TypedMetadataForm, TypedMetadataValues } from './typed-metadata.js';

/**
 * The selected object's metadata (GET .../object/{objectId}/metadata) and its attachments. With a
 * metadata type: the values of its properties, by section. Without one: free sections (docs/twins.md,
 * "Free metadata"), and for an editor the choice of a first type. Editors change the values in a
 * form that sends what changed as a merge patch; readers see them as a list.
 */
export function MetadataPanel(props: {
  context: TwinContext;
  selection: Selection;
  name: string;
  /** The object's updatedAt: a change of it (another metadata type) reads its metadata again. */
  version: string;
  types: MetadataType[];
  onChanged: (message: string) => void;
}) {
  const session = useSession();
  const { context, selection } = props;
  const metadata = useResource(
    () =>
      ok(
        session.api.GET('/v1/twin/{contextId}/object/{objectId}/metadata', {
          params: { path: { contextId: context.ctx, objectId: selection.id } },
        }),
      ),
    [context.ctx, selection.id],
  );
  // Another version of the object (a type given elsewhere, a save) reads the metadata again while
  // the panel keeps showing what it has: a choice the person is making in it is not thrown away.
  const shownVersion = useRef(props.version);
  useEffect(() => {
    if (shownVersion.current === props.version) return;
    shownVersion.current = props.version;
    metadata.reload();
  }, [props.version]);
  const attachments = useResource(
    () =>
      ok(
        session.api.GET('/v1/twin/{contextId}/object/{objectId}/attachments', {
          params: { path: { contextId: context.ctx, objectId: selection.id } },
        }),
      ) as Promise<Attachment[]>,
    [context.ctx, selection.id],
  );
  const data = metadata.data;
  const type = props.types.find((candidate) => candidate.id === data?.metadataTypeId);
  const saved = () => {
    metadata.reload();
    props.onChanged(`Metadata of ${props.name} saved.`);
  };
  const formProps = { context, objectId: selection.id, attachments: attachments.data ?? [], onSaved: saved };

  return (
    <>
      <section class="twin-panel" aria-labelledby="metadata-heading">
        <h2 id="metadata-heading">Metadata of {props.name}</h2>
        {!data ? (
          <LoadingOrError error={metadata.error} />
        ) : !data.metadataTypeId ? (
          <>
            <p>
              This {TWIN_OBJECT_KINDS[selection.kind].word} has no metadata type. It holds free metadata
              {context.canWrite ? ', or give it a type.' : '.'}
            </p>
            {context.canWrite && (
              <MetadataTypeChoice
                context={context}
                selection={selection}
                types={props.types}
                onRetyped={(given, dropped) => {
                  metadata.reload();
                  props.onChanged(
                    `${props.name} is of the metadata type ${given.name} now${dropped ? '; what did not fit it was dropped' : ''}.`,
                  );
                }}
              />
            )}
            {context.canWrite ? (
              <FreeMetadataForm key={data.updatedAt} {...formProps} sections={data.sections} />
            ) : (
              <FreeMetadataValues sections={data.sections} />
            )}
          </>
        ) : !type ? (
          <p>Its metadata type no longer exists.</p>
        ) : context.canWrite ? (
          <TypedMetadataForm key={data.updatedAt} {...formProps} type={type} sections={data.sections} />
        ) : (
          <TypedMetadataValues type={type} sections={data.sections} />
        )}
      </section>
      <ObjectAttachments
        context={context}
        selection={selection}
        name={props.name}
        attachments={attachments}
        onAdded={props.onChanged}
      />
    </>
  );
}
