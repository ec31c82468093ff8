import { ok } from '@reality-data-platform/sdk/browser';
import type { JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { ErrorNotice } from '../../ui/components.js';
import { useSubmission } from '../../ui/form-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { TWIN_OBJECT_KINDS } from './object-kinds.js';
import type { MetadataProperty, MetadataType, ObjectMetadata, Selection, TwinContext } from './twin-api.js';

type Value = ObjectMetadata['sections'][string][string];
type LinkValue = { _p3d_type: 'urn:primitive:obj:external-link'; url: string; text: string };

/**
 * The selected object's metadata: the values of its metadata type's properties, by section
 * (GET .../object/{objectId}/metadata). Editors change them in a form that sends only what
 * changed, as a merge patch (a value cleared is removed); readers see them as a list.
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
    [context.ctx, selection.id, props.version],
  );
  const data = metadata.data;
  const type = props.types.find((candidate) => candidate.id === data?.metadataTypeId);

  return (
    <section class="twin-panel" aria-labelledby="metadata-heading">
      <h2 id="metadata-heading">Metadata of {props.name}</h2>
      {!data ? (
        <LoadingOrError error={metadata.error} />
      ) : !data.metadataTypeId ? (
        <p>
          This {TWIN_OBJECT_KINDS[selection.kind].word} has no metadata type.
          {context.canWrite ? ' Choose one with Edit to give it values.' : ''}
        </p>
      ) : !type ? (
        <p>Its metadata type no longer exists.</p>
      ) : context.canWrite ? (
        <MetadataForm
          key={data.updatedAt}
          context={context}
          objectId={selection.id}
          type={type}
          sections={data.sections}
          onSaved={() => {
            metadata.reload();
            props.onChanged(`Metadata of ${props.name} saved.`);
          }}
        />
      ) : (
        <MetadataValues type={type} sections={data.sections} />
      )}
    </section>
  );
}

function MetadataValues(props: { type: MetadataType; sections: ObjectMetadata['sections'] }) {
  return (
    <>
      <p class="muted">Type: {props.type.name}</p>
      {sectionsOf(props.type).map(([section, properties]) => (
        <div key={section}>
          <h3>{section}</h3>
          <dl class="metadata-values">
            {properties.map((property) => (
              <div key={property.name}>
                <dt>{property.name}</dt>
                <dd>{valueInWords(props.sections[section]?.[property.name], property)}</dd>
              </div>
            ))}
          </dl>
        </div>
      ))}
    </>
  );
}

function MetadataForm(props: {
  context: TwinContext;
  objectId: string;
  type: MetadataType;
  sections: ObjectMetadata['sections'];
  onSaved: () => void;
}) {
  const session = useSession();
  const [values, setValues] = useState<Record<string, Value | null>>({});
  const { busy, error, run } = useSubmission();
  const current = (section: string, name: string) => props.sections[section]?.[name];
  const shown = (section: string, name: string) => {
    const key = keyOf(section, name);
    return key in values ? values[key] : current(section, name);
  };

  async function save() {
    // A merge patch of what was touched: a value cleared is null (removed).
    const sections: Record<string, Record<string, Value | null>> = {};
    for (const [key, value] of Object.entries(values)) {
      const [section, name] = JSON.parse(key) as [string, string];
      if (JSON.stringify(value ?? null) === JSON.stringify(current(section, name) ?? null)) continue;
      sections[section] = { ...sections[section], [name]: value };
    }
    await ok(
      session.api.PATCH('/v1/twin/{contextId}/object/{objectId}/metadata', {
        params: { path: { contextId: props.context.ctx, objectId: props.objectId } },
        body: { sections: sections as Record<string, Record<string, Value>> },
      }),
    );
    props.onSaved();
  }

  return (
    <form
      class="metadata-form"
      onSubmit={(event) => {
        event.preventDefault();
        void run(save);
      }}
    >
      <p class="muted">Type: {props.type.name}</p>
      {sectionsOf(props.type).map(([section, properties]) => (
        <fieldset key={section}>
          <legend>{section}</legend>
          {properties.map((property) => (
            <PropertyInput
              key={property.name}
              property={property}
              value={shown(section, property.name)}
              onValue={(value) => setValues((before) => ({ ...before, [keyOf(section, property.name)]: value }))}
            />
          ))}
        </fieldset>
      ))}
      <ErrorNotice error={error} />
      <button type="submit" disabled={busy}>
        Save metadata
      </button>
    </form>
  );
}

/** One property's input by its type; an empty input is "no value" (null). */
function PropertyInput(props: {
  property: MetadataProperty;
  value: Value | null | undefined;
  onValue: (value: Value | null) => void;
}) {
  const id = useId();
  const { property, value } = props;
  const label = `${property.name}${property.unit ? ` (${property.unit})` : ''}${property.required ? ' (required)' : ''}`;
  const text = (event: Event) => (event.target as HTMLInputElement).value;
  let input: JSX.Element;
  switch (property.type) {
    case 'number':
      input = (
        <input
          id={id}
          type="number"
          step="any"
          value={typeof value === 'number' ? String(value) : ''}
          onInput={(event) => props.onValue(text(event) === '' ? null : Number(text(event)))}
        />
      );
      break;
    case 'longText':
      input = (
        <textarea
          id={id}
          rows={3}
          maxLength={10_000}
          value={typeof value === 'string' ? value : ''}
          onInput={(event) => props.onValue(text(event) || null)}
        />
      );
      break;
    case 'boolean':
    case 'choice': {
      const options = property.type === 'boolean' ? ['Yes', 'No'] : (property.choices ?? []);
      const selected =
        property.type === 'boolean'
          ? value === true
            ? 'Yes'
            : value === false
              ? 'No'
              : ''
          : typeof value === 'string'
            ? value
            : '';
      input = (
        <select
          id={id}
          value={selected}
          onChange={(event) => {
            const chosen = text(event);
            props.onValue(chosen === '' ? null : property.type === 'boolean' ? chosen === 'Yes' : chosen);
          }}
        >
          <option value="">Not set</option>
          {options.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      );
      break;
    }
    case 'link': {
      const link = value as LinkValue | undefined;
      input = (
        <input
          id={id}
          type="url"
          value={link?.url ?? ''}
          onInput={(event) =>
            props.onValue(
              text(event) === ''
                ? null
                : { _p3d_type: 'urn:primitive:obj:external-link', url: text(event), text: link?.text ?? '' },
            )
          }
        />
      );
      break;
    }
    case 'attachment':
      // Uploading a file is the attachment routes' work; the console shows which one is set.
      return (
        <div class="field">
          <span class="field-label">{label}</span>
          <span>{valueInWords(value, property)}</span>
        </div>
      );
    default:
      input = (
        <input
          id={id}
          type="text"
          maxLength={255}
          value={typeof value === 'string' ? value : ''}
          onInput={(event) => props.onValue(text(event) || null)}
        />
      );
  }
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {input}
    </div>
  );
}

function keyOf(section: string, name: string): string {
  return JSON.stringify([section, name]);
}

/** The type's properties grouped by section, sections in the order of their first property. */
function sectionsOf(type: MetadataType): [string, MetadataProperty[]][] {
  const sections = new Map<string, MetadataProperty[]>();
  for (const property of type.properties) sections.set(property.section, [...(sections.get(property.section) ?? []), property]);
  return [...sections];
}

function valueInWords(value: Value | null | undefined, property: MetadataProperty): string {
  if (value === undefined || value === null || value === '') return 'Not set';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return property.unit ? `${value} ${property.unit}` : String(value);
  if (typeof value === 'string') return value;
  return 'url' in value ? value.url : `File ${value.name}`;
}
