import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../ui/components.js';
import { useSubmission } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { type Attachment, type MetadataValue, valueInWords } from './metadata-values.js';
import { PropertyInput } from './property-input.js';
import type { MetadataProperty, MetadataType, ObjectMetadata, TwinContext } from './twin-api.js';

type Sections = ObjectMetadata['sections'];

/** A reader's view of an object's values, by its type's sections. */
export function TypedMetadataValues(props: { type: MetadataType; sections: Sections }) {
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

/** An editor's form of the type's properties: it sends only what changed, as a merge patch (a value cleared is removed). */
export function TypedMetadataForm(props: {
  context: TwinContext;
  objectId: string;
  type: MetadataType;
  sections: Sections;
  attachments: Attachment[];
  onSaved: () => void;
}) {
  const session = useSession();
  const [values, setValues] = useState<Record<string, MetadataValue | null>>({});
  const { busy, error, run } = useSubmission();
  const current = (section: string, name: string) => props.sections[section]?.[name];
  const shown = (section: string, name: string) => {
    const key = keyOf(section, name);
    return key in values ? values[key] : current(section, name);
  };

  async function save() {
    const sections: Record<string, Record<string, MetadataValue | null>> = {};
    for (const [key, value] of Object.entries(values)) {
      const [section, name] = JSON.parse(key) as [string, string];
      if (JSON.stringify(value ?? null) === JSON.stringify(current(section, name) ?? null)) continue;
      sections[section] = { ...sections[section], [name]: value };
    }
    await ok(
      session.api.PATCH('/v1/twin/{contextId}/object/{objectId}/metadata', {
        params: { path: { contextId: props.context.ctx, objectId: props.objectId } },
        body: { sections: sections as Record<string, Record<string, MetadataValue>> },
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
              label={`${property.name}${property.unit ? ` (${property.unit})` : ''}${property.required ? ' (required)' : ''}`}
              property={property}
              value={shown(section, property.name)}
              attachments={props.attachments}
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

function keyOf(section: string, name: string): string {
  return JSON.stringify([section, name]);
}

/** The type's properties grouped by section, sections in the order of their first property. */
function sectionsOf(type: MetadataType): [string, MetadataProperty[]][] {
  const sections = new Map<string, MetadataProperty[]>();
  for (const property of type.properties) sections.set(property.section, [...(sections.get(property.section) ?? []), property]);
  return [...sections];
}
