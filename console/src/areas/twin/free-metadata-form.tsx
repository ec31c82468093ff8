import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ChoiceField } from '../../ui/choice-field.js';
import { ErrorNotice, TextField } from '../../ui/components.js';
import { useSubmission } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import {
  FREE_KINDS,
  FREE_TEXT_LENGTH,
  type FreeKind,
  type FreeProperty,
  type FreeSection,
  freeSectionsOf,
  freeSectionsPatch,
  freeSectionsProblem,
  INPUT_OF_KIND,
} from './free-metadata.js';
import { type Attachment, type MetadataValue, valueInWords } from './metadata-values.js';
import { PropertyInput } from './property-input.js';
import type { ObjectMetadata, TwinContext } from './twin-api.js';

type Sections = ObjectMetadata['sections'];

/** A reader's view of free metadata: each section and its values. */
export function FreeMetadataValues(props: { sections: Sections }) {
  const sections = Object.entries(props.sections);
  if (sections.length === 0) return <p>No metadata.</p>;
  return (
    <>
      {sections.map(([section, properties]) => (
        <div key={section}>
          <h3>{section}</h3>
          <dl class="metadata-values">
            {Object.entries(properties).map(([name, value]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>{valueInWords(value)}</dd>
              </div>
            ))}
          </dl>
        </div>
      ))}
    </>
  );
}

/**
 * An editor's form of free metadata (docs/twins.md, "Free metadata"): sections and properties
 * added, renamed and removed, each property with its kind and value; Save sends the merge patch
 * from the stored sections to the form's.
 */
export function FreeMetadataForm(props: {
  context: TwinContext;
  objectId: string;
  sections: Sections;
  attachments: Attachment[];
  onSaved: () => void;
}) {
  const session = useSession();
  const [sections, setSections] = useState<FreeSection[]>(() => freeSectionsOf(props.sections));
  const { busy, error, setError, run } = useSubmission();
  const changeSection = (index: number, change: (section: FreeSection) => FreeSection) =>
    setSections((before) => before.map((section, at) => (at === index ? change(section) : section)));

  async function save() {
    const problem = freeSectionsProblem(sections);
    if (problem) throw new Error(problem);
    await ok(
      session.api.PATCH('/v1/twin/{contextId}/object/{objectId}/metadata', {
        params: { path: { contextId: props.context.ctx, objectId: props.objectId } },
        body: { sections: freeSectionsPatch(props.sections, sections) as Record<string, Record<string, MetadataValue>> },
      }),
    );
    props.onSaved();
  }

  return (
    <form
      class="metadata-form"
      onSubmit={(event) => {
        event.preventDefault();
        setError(undefined);
        void run(save);
      }}
    >
      <p class="muted">Free metadata: any sections, each property text, a number, yes or no, a link or an attachment.</p>
      {sections.map((section, index) => (
        <fieldset key={index} class="free-section">
          <legend>Section {index + 1}</legend>
          <TextField
            label="Section name"
            value={section.name}
            maxLength={255}
            onValue={(name) => changeSection(index, (before) => ({ ...before, name }))}
          />
          {section.properties.map((property, at) => (
            <FreePropertyFields
              key={at}
              number={at + 1}
              property={property}
              attachments={props.attachments}
              onChange={(changed) =>
                changeSection(index, (before) => ({
                  ...before,
                  properties: before.properties.map((other, which) => (which === at ? changed : other)),
                }))
              }
              onRemove={() =>
                changeSection(index, (before) => ({
                  ...before,
                  properties: before.properties.filter((_, which) => which !== at),
                }))
              }
            />
          ))}
          <div class="buttons-row">
            <button
              type="button"
              class="quiet"
              onClick={() =>
                changeSection(index, (before) => ({
                  ...before,
                  properties: [...before.properties, { name: '', kind: 'string', value: null }],
                }))
              }
            >
              Add a property to section {index + 1}
            </button>
            <button
              type="button"
              class="quiet danger-text"
              onClick={() => setSections((before) => before.filter((_, at) => at !== index))}
            >
              Remove section {index + 1}
            </button>
          </div>
        </fieldset>
      ))}
      <ErrorNotice error={error} />
      <div class="buttons-row">
        <button
          type="button"
          class="quiet"
          onClick={() =>
            setSections((before) => [...before, { name: '', properties: [{ name: '', kind: 'string', value: null }] }])
          }
        >
          Add a section
        </button>
        <button type="submit" disabled={busy}>
          Save metadata
        </button>
      </div>
    </form>
  );
}

function FreePropertyFields(props: {
  number: number;
  property: FreeProperty;
  attachments: Attachment[];
  onChange: (property: FreeProperty) => void;
  onRemove: () => void;
}) {
  const { property } = props;
  return (
    <fieldset class="free-property">
      <legend>Property {props.number}</legend>
      <TextField
        label="Property name"
        value={property.name}
        maxLength={255}
        onValue={(name) => props.onChange({ ...property, name })}
      />
      <ChoiceField
        label="Kind"
        value={property.kind}
        options={FREE_KINDS}
        // Another kind starts without a value: the old one would not be of it.
        onValue={(kind) => props.onChange({ ...property, kind: kind as FreeKind, value: null })}
      />
      <PropertyInput
        label="Value"
        property={{ type: INPUT_OF_KIND[property.kind] }}
        maxLength={FREE_TEXT_LENGTH}
        value={property.value}
        attachments={props.attachments}
        onValue={(value) => props.onChange({ ...property, value })}
      />
      <button type="button" class="quiet danger-text" onClick={props.onRemove}>
        Remove property {props.number}
      </button>
    </fieldset>
  );
}
