import { useId } from 'preact/hooks';
import { ChoiceField } from '../../ui/choice-field.js';
import { TextField } from '../../ui/components.js';
import type { MetadataProperty } from '../twin/twin-api.js';

/** A property as the form edits it: choices as lines of text, unit and choices kept while the kind changes. */
export interface DraftProperty {
  section: string;
  name: string;
  type: MetadataProperty['type'];
  unit: string;
  choices: string;
  required: boolean;
}

export const PROPERTY_KINDS: [MetadataProperty['type'], string][] = [
  ['shortText', 'Short text'],
  ['longText', 'Long text'],
  ['number', 'Number'],
  ['boolean', 'Yes or no'],
  ['choice', 'Choice'],
  ['link', 'Link'],
  ['attachment', 'Attachment'],
];

export function propertyToDraft(property: MetadataProperty): DraftProperty {
  return { ...property, unit: property.unit ?? '', choices: (property.choices ?? []).join('\n'), required: property.required };
}

/** The property as the API takes it: a unit only on a number (when given), choices only on a choice. */
export function propertyFromDraft(draft: DraftProperty): MetadataProperty {
  const property: MetadataProperty = { section: draft.section, name: draft.name, type: draft.type, required: draft.required };
  if (draft.type === 'number' && draft.unit !== '') property.unit = draft.unit;
  if (draft.type === 'choice') {
    property.choices = draft.choices
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
  }
  return property;
}

/** The type's properties, one group each, in order; a new one starts in the last one's section. */
export function PropertyRows(props: { properties: DraftProperty[]; onProperties: (properties: DraftProperty[]) => void }) {
  const { properties } = props;
  const change = (index: number, fields: Partial<DraftProperty>) =>
    props.onProperties(properties.map((property, at) => (at === index ? { ...property, ...fields } : property)));
  return (
    <fieldset class="property-rows">
      <legend>Properties</legend>
      {properties.length === 0 && <p class="muted">No property yet.</p>}
      {properties.map((property, index) => (
        <PropertyRow
          key={index}
          number={index + 1}
          property={property}
          onChange={(fields) => change(index, fields)}
          onRemove={() => props.onProperties(properties.filter((_, at) => at !== index))}
        />
      ))}
      <button
        type="button"
        class="quiet"
        onClick={() =>
          props.onProperties([
            ...properties,
            {
              section: properties.at(-1)?.section ?? 'General',
              name: '',
              type: 'shortText',
              unit: '',
              choices: '',
              required: false,
            },
          ])
        }
      >
        Add a property
      </button>
    </fieldset>
  );
}

function PropertyRow(props: {
  number: number;
  property: DraftProperty;
  onChange: (fields: Partial<DraftProperty>) => void;
  onRemove: () => void;
}) {
  const { property } = props;
  const choicesId = useId();
  return (
    <fieldset class="property-row">
      <legend>Property {props.number}</legend>
      <TextField
        label="Section"
        value={property.section}
        onValue={(section) => props.onChange({ section })}
        required
        maxLength={255}
      />
      <TextField label="Name" value={property.name} onValue={(name) => props.onChange({ name })} required maxLength={255} />
      <ChoiceField
        label="Kind"
        value={property.type}
        onValue={(type) => props.onChange({ type: type as DraftProperty['type'] })}
        options={PROPERTY_KINDS}
      />
      {property.type === 'number' && (
        <TextField label="Unit" value={property.unit} onValue={(unit) => props.onChange({ unit })} maxLength={32} />
      )}
      {property.type === 'choice' && (
        <div class="field">
          <label for={choicesId}>Choices, one a line</label>
          <textarea
            id={choicesId}
            rows={3}
            required
            value={property.choices}
            onInput={(event) => props.onChange({ choices: (event.target as HTMLTextAreaElement).value })}
          />
        </div>
      )}
      <label class="check">
        <input
          type="checkbox"
          checked={property.required}
          onChange={(event) => props.onChange({ required: (event.target as HTMLInputElement).checked })}
        />
        Required
      </label>
      <button type="button" class="quiet danger-text" onClick={props.onRemove}>
        Remove property {props.number}
      </button>
    </fieldset>
  );
}
