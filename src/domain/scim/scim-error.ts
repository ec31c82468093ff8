/** The message schema of RFC 7644 section 3.12: every SCIM error body carries it. */
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** RFC 7644 table 9: the detail error keywords a 400 (or 409) may carry. */
export type ScimType =
  | 'invalidFilter'
  | 'tooMany'
  | 'uniqueness'
  | 'mutability'
  | 'invalidSyntax'
  | 'invalidPath'
  | 'noTarget'
  | 'invalidValue'
  | 'invalidVers'
  | 'sensitive'
  /** RFC 9865: a cursor this list did not return. */
  | 'invalidCursor';

/**
 * An error as an identity provider reads it: { schemas, status (a string), scimType?, detail }.
 * The SCIM surface answers only these, never the regional API's { statusCode, error } shape.
 */
export class ScimError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly scimType?: ScimType,
  ) {
    super(detail);
  }

  toBody(): Record<string, unknown> {
    return {
      schemas: [ERROR_SCHEMA],
      status: String(this.status),
      ...(this.scimType ? { scimType: this.scimType } : {}),
      detail: this.detail,
    };
  }
}

export const badRequest = (scimType: ScimType, detail: string) => new ScimError(400, detail, scimType);
export const notFound = (detail: string) => new ScimError(404, detail);
export const conflict = (detail: string) => new ScimError(409, detail, 'uniqueness');
