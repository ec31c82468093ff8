import { RdpApiError } from '@reality-data-platform/sdk/browser';
import { ErrorNotice } from '../../ui/components.js';

/**
 * A first metadata type given to an object with free metadata: the platform keeps what fits the
 * type and refuses, naming them, the properties that do not, unless they are dropped
 * (dropUnfitting; docs/twins.md, "Free metadata"). Here: that refusal in words, and the choice.
 */

/**
 * The properties a 400 names as not fitting the type ("Maintenance.Colour: is not a property of
 * the metadata type"), or undefined for any other refusal. The platform names them after its
 * explanation, separated by "; ".
 */
export function unfittingProperties(error: unknown): string[] | undefined {
  if (!(error instanceof RdpApiError) || error.status !== 400) return undefined;
  const message = error.body.message ?? '';
  if (!message.startsWith('body.metadataTypeId:') || !message.includes('do not fit')) return undefined;
  const list = message.slice(message.indexOf('): ') + 3);
  return list.split('; ').map((line) => line.replace(/^sections\./, ''));
}

/** The properties that do not fit, as a list under a sentence saying how many. */
export function UnfittingList(props: { unfitting: string[]; typeName?: string }) {
  const { unfitting } = props;
  const count =
    unfitting.length === 1 ? 'One property of its free metadata does' : `${unfitting.length} properties of its free metadata do`;
  return (
    <>
      <p>
        {count} not fit {props.typeName ?? 'the metadata type'}:
      </p>
      <ul>
        {unfitting.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
    </>
  );
}

/** A dialog's refusal: what does not fit in words (the dialog offers to drop it), anything else as the platform says it. */
export function RetypeRefusal(props: { error: unknown }) {
  const unfitting = unfittingProperties(props.error);
  if (!unfitting) return <ErrorNotice error={props.error} />;
  return (
    <div class="notice error" role="alert">
      <UnfittingList unfitting={unfitting} />
      <p>Tick “Drop the free metadata that does not fit” to give the type anyway.</p>
    </div>
  );
}

/**
 * Below an edit dialog's metadata type: what choosing another does to the object's values. From
 * none to a first type, the choice to drop what does not fit; from one type to another (or none),
 * the values are cleared.
 */
export function TypeChangeNote(props: {
  word: string;
  before: string | null;
  after: string;
  drop: boolean;
  onDrop: (drop: boolean) => void;
}) {
  if (props.before === null) {
    if (props.after === '') return null;
    return (
      <label class="check">
        <input
          type="checkbox"
          checked={props.drop}
          onChange={(event) => props.onDrop((event.target as HTMLInputElement).checked)}
        />
        Drop the free metadata that does not fit
      </label>
    );
  }
  if (props.after === props.before) return null;
  return <p class="notice">Another metadata type clears the values this {props.word} holds.</p>;
}
