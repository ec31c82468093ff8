import type { Schema } from '@reality-data-platform/sdk/browser';
import type { MetadataProperty, ObjectMetadata } from './twin-api.js';

/** One stored metadata value: text, a number, yes or no, a link or an attachment (docs/twins.md, "Object metadata"). */
export type MetadataValue = ObjectMetadata['sections'][string][string];
export type LinkValue = { _p3d_type: 'urn:primitive:obj:external-link'; url: string; text: string };
export type AttachmentValue = { _p3d_type: 'urn:primitive:obj:attachment'; id: string; name: string };
export type Attachment = Schema<'Attachment'>;

export function linkValue(url: string, text: string): LinkValue {
  return { _p3d_type: 'urn:primitive:obj:external-link', url, text };
}

/** The value naming one of the object's attachments, labelled by its file's name. */
export function attachmentValue(attachment: Attachment): AttachmentValue {
  return { _p3d_type: 'urn:primitive:obj:attachment', id: attachment.id, name: attachment.name };
}

export function isAttachmentValue(value: unknown): value is AttachmentValue {
  return typeof value === 'object' && value !== null && (value as AttachmentValue)._p3d_type === 'urn:primitive:obj:attachment';
}

export function isLinkValue(value: unknown): value is LinkValue {
  return typeof value === 'object' && value !== null && (value as LinkValue)._p3d_type === 'urn:primitive:obj:external-link';
}

/** A value in words: "7.5 kW", "Yes", a link's address, "File report.pdf". */
export function valueInWords(value: MetadataValue | null | undefined, property?: Pick<MetadataProperty, 'unit'>): string {
  if (value === undefined || value === null || value === '') return 'Not set';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return property?.unit ? `${value} ${property.unit}` : String(value);
  if (typeof value === 'string') return value;
  return isLinkValue(value) ? value.url : `File ${(value as AttachmentValue).name}`;
}
