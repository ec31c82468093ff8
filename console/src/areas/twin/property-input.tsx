import type { JSX } from 'preact';
import { useId } from 'preact/hooks';
import {
  type Attachment,
  attachmentValue,
  isAttachmentValue,
  isLinkValue,
  linkValue,
  type MetadataValue,
} from './metadata-values.js';
import type { MetadataProperty } from './twin-api.js';

type Value = MetadataValue | null;

/**
 * One value's input by the kind of its property (a type's property, or a free property whose kind
 * the person chose); an empty input is "no value" (null). An attachment is chosen among the
 * object's attachments (docs/twins.md: one finalized on the same site).
 */
export function PropertyInput(props: {
  label: string;
  property: Pick<MetadataProperty, 'type' | 'choices'>;
  value: Value | undefined;
  attachments: Attachment[];
  /** A short text's bound: a type's shortText takes 255 characters, a free string 10,000. */
  maxLength?: number;
  onValue: (value: Value) => void;
}) {
  const id = useId();
  const { property, value } = props;
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
      const link = isLinkValue(value) ? value : undefined;
      input = (
        <input
          id={id}
          type="url"
          value={link?.url ?? ''}
          onInput={(event) => props.onValue(text(event) === '' ? null : linkValue(text(event), link?.text ?? ''))}
        />
      );
      break;
    }
    case 'attachment': {
      const chosen = isAttachmentValue(value) ? value : undefined;
      const ready = props.attachments.filter((attachment) => attachment.state === 'ready');
      input = (
        <select
          id={id}
          value={chosen?.id ?? ''}
          onChange={(event) => {
            const attachment = ready.find((candidate) => candidate.id === text(event));
            props.onValue(attachment ? attachmentValue(attachment) : null);
          }}
        >
          <option value="">Not set</option>
          {/* A value naming an attachment of another object of the site is kept as it is. */}
          {chosen && !ready.some((attachment) => attachment.id === chosen.id) && <option value={chosen.id}>{chosen.name}</option>}
          {ready.map((attachment) => (
            <option key={attachment.id} value={attachment.id}>
              {attachment.name}
            </option>
          ))}
        </select>
      );
      break;
    }
    default:
      input = (
        <input
          id={id}
          type="text"
          maxLength={props.maxLength ?? 255}
          value={typeof value === 'string' ? value : ''}
          onInput={(event) => props.onValue(text(event) || null)}
        />
      );
  }
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {input}
    </div>
  );
}
