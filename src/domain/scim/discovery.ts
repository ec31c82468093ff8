import { GROUP_SCHEMA, USER_SCHEMA } from './attributes.js';
import { MAX_RESULTS } from './listing.js';

/**
 * The discovery documents of RFC 7643 sections 5 to 7: what this endpoint supports, its two
 * resource types and the attributes it keeps, enough for providers that read them.
 */
const SERVICE_PROVIDER_CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export function serviceProviderConfig(baseUrl: string) {
  return {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    // RFC 9865: /Users and /Groups page by cursor too; index paging stays the default.
    pagination: {
      cursor: true,
      index: true,
      defaultPaginationMethod: 'index',
      defaultPageSize: MAX_RESULTS,
      maxPageSize: MAX_RESULTS,
    },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'OAuth Bearer Token',
        description: 'A SCIM token an organization administrator creates with POST /v1/scim-tokens',
        specUri: 'https://www.rfc-editor.org/rfc/rfc6750',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${baseUrl}/ServiceProviderConfig` },
  };
}

export function resourceTypes(baseUrl: string) {
  return [
    { id: 'User', name: 'User', endpoint: '/Users', description: 'People of the organization', schema: USER_SCHEMA },
    { id: 'Group', name: 'Group', endpoint: '/Groups', description: 'Groups provisioned over SCIM', schema: GROUP_SCHEMA },
  ].map((type) => ({
    schemas: [RESOURCE_TYPE_SCHEMA],
    ...type,
    schemaExtensions: [],
    meta: { resourceType: 'ResourceType', location: `${baseUrl}/ResourceTypes/${type.id}` },
  }));
}

interface SchemaAttribute {
  name: string;
  type: string;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: string;
  returned: string;
  uniqueness: string;
  subAttributes?: SchemaAttribute[];
  referenceTypes?: string[];
}

interface AttributeOptions {
  type?: 'string' | 'boolean' | 'complex' | 'reference';
  multiValued?: boolean;
  required?: boolean;
  caseExact?: boolean;
  mutability?: 'readOnly' | 'readWrite' | 'immutable';
  uniqueness?: 'none' | 'server';
  subAttributes?: SchemaAttribute[];
  referenceTypes?: string[];
}

function attribute(name: string, description: string, options: AttributeOptions = {}): SchemaAttribute {
  const { type = 'string', subAttributes, referenceTypes, ...rest } = options;
  return {
    name,
    type,
    multiValued: false,
    description,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    returned: 'default',
    uniqueness: 'none',
    ...rest,
    ...(subAttributes ? { subAttributes } : {}),
    ...(referenceTypes ? { referenceTypes } : {}),
  };
}

const USER_ATTRIBUTES = [
  attribute('userName', "The user's e-mail address: its account on the platform", { required: true, uniqueness: 'server' }),
  attribute('name', "The user's name", {
    type: 'complex',
    subAttributes: [attribute('givenName', 'Given name'), attribute('familyName', 'Family name')],
  }),
  attribute('displayName', 'Given and family name (read only: derived from name)', { mutability: 'readOnly' }),
  attribute('emails', 'The userName as the one work address (read only: derived from userName)', {
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    subAttributes: [attribute('value', 'Address'), attribute('type', 'work'), attribute('primary', 'true', { type: 'boolean' })],
  }),
  attribute('active', 'Whether the user may act in this organization', { type: 'boolean' }),
  attribute('groups', 'SCIM groups the user belongs to', {
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    subAttributes: [
      attribute('value', 'Group id', { mutability: 'readOnly' }),
      attribute('display', 'Group name', { mutability: 'readOnly' }),
      attribute('$ref', 'Group address', { type: 'reference', referenceTypes: ['Group'], mutability: 'readOnly' }),
    ],
  }),
];

const GROUP_ATTRIBUTES = [
  attribute('displayName', 'Group name, unique within the organization', { required: true, uniqueness: 'server' }),
  attribute('members', 'Users of the organization', {
    type: 'complex',
    multiValued: true,
    subAttributes: [
      attribute('value', 'User id', { mutability: 'immutable', caseExact: true }),
      attribute('display', 'User name', { mutability: 'readOnly' }),
      attribute('$ref', 'User address', { type: 'reference', referenceTypes: ['User'], mutability: 'immutable' }),
      attribute('type', 'User', { mutability: 'immutable' }),
    ],
  }),
];

export function schemas(baseUrl: string) {
  return [
    { id: USER_SCHEMA, name: 'User', description: 'User account', attributes: USER_ATTRIBUTES },
    { id: GROUP_SCHEMA, name: 'Group', description: 'Group', attributes: GROUP_ATTRIBUTES },
  ].map((schema) => ({
    schemas: [SCHEMA_SCHEMA],
    ...schema,
    meta: { resourceType: 'Schema', location: `${baseUrl}/Schemas/${schema.id}` },
  }));
}
