import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import type { RegionServices } from '../../../composition/region-services.js';
import type { Principal } from '../../../domain/access/principal.js';
import { validationError } from '../../../domain/errors.js';
import { clampLimit, Paging } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { created, errors } from '../responses.js';
import { ContextIdParams, IncludeMetadata, ObjectId } from './twin-value-schemas.js';

/** What a kind's service does through a {ctx}: the five operations its routes call. */
export interface ObjectOperations<O, Create, Update> {
  list(principal: Principal, contextId: string, limit: number, offset: number): Promise<O[]>;
  get(principal: Principal, contextId: string, id: string): Promise<O>;
  create(principal: Principal, contextId: string, input: Create): Promise<O>;
  update(principal: Principal, contextId: string, id: string, changes: Update): Promise<O>;
  delete(principal: Principal, contextId: string, id: string): Promise<void>;
}

/** An operation's words in the OpenAPI document. */
export interface OperationText {
  summary: string;
  description: string;
}

/** A list route other than a page of the answers (zones: also as a tree), with its own query and answer. */
export interface ListRoute<Query extends TObject> {
  querystring: Query;
  /** The 200 answer's schema, given the reference to the kind's answer schema. */
  response(answer: TSchema): TSchema;
  answer(services: RegionServices, principal: Principal, contextId: string, query: Static<Query>): Promise<unknown>;
}

/**
 * One kind of twin object's routes (docs/architecture.md, "Recipe: a twin object kind"): GET (a
 * page), POST under /v1/twin/{contextId}/<segment>, and GET, PATCH, DELETE of one under
 * /<segment>/{<idParam>}; their schemas, tag and words are the OpenAPI document's.
 */
export interface TwinObjectRoutes<
  O,
  Id extends string,
  Answer extends TObject,
  Create extends TObject,
  Update extends TObject,
  Query extends TObject = TObject,
> {
  /** The path segment: /v1/twin/{contextId}/points-of-interest. */
  segment: string;
  /** The id's path parameter: /v1/twin/{contextId}/points-of-interest/{pointOfInterestId}. */
  idParam: Id;
  /** The kind's name in operation ids: listPointsOfInterest, getPointOfInterest, createPointOfInterest... */
  names: { singular: string; plural: string };
  tag: string;
  /** The answer's schema (with its $id: a component of the document) and the bodies a create and a PATCH take. */
  schemas: { answer: Answer; create: Create; update: Update; others?: TSchema[] };
  text: { list: OperationText; get: OperationText; create: OperationText; update: OperationText; delete: OperationText };
  service(services: RegionServices): ObjectOperations<O, Static<Create>, Static<Update>>;
  /** The answer's body; the metadata sections only when asked for (includeMetadata). */
  toBody(object: O, withMetadata: boolean): Static<Answer> & { id: string };
  list?: ListRoute<Query>;
  /** A create's and a PATCH's body limit in bytes, when the kind's bodies may be larger than the platform's JSON limit. */
  bodyLimit?: number;
  /** Fields the platform computes: a create or PATCH whose body names one is 400 naming it (measurements' value and unit). */
  computed?: { fields: readonly string[]; why: string };
}

/** includeMetadata, or its earlier spelling includeMetaData. */
export function wantsMetadata(query: { includeMetadata?: boolean; includeMetaData?: boolean }): boolean {
  return Boolean(query.includeMetadata ?? query.includeMetaData);
}

/** A path parameter of the route's path: always there (the path names it) once the schema passed. */
function pathParameter(params: Record<string, string | undefined>, name: string): string {
  const value = params[name];
  if (value === undefined) throw new Error(`The route has no path parameter ${name}`);
  return value;
}

/**
 * A kind's definition as the registration takes it: each definition is typed by its own schemas
 * where it is written (its service takes what they validate, its toBody what the service
 * answers); here, where one function registers every kind, they are any kind's.
 */
type AnyTwinObjectRoutes = TwinObjectRoutes<any, string, TObject, TObject, TObject, TObject>;

/** The five routes of one kind, from its definition. */
export function registerTwinObjectRoutes(app: RegionApp, kind: AnyTwinObjectRoutes) {
  app.addSchema(kind.schemas.answer);
  for (const schema of kind.schemas.others ?? []) app.addSchema(schema);
  const { $id } = kind.schemas.answer;
  if (!$id) throw new Error(`The answer schema of ${kind.segment} has no $id: it is a component of the document`);
  const answer = Type.Ref($id);
  const service = kind.service(app.services);
  const list = `/v1/twin/:contextId/${kind.segment}`;
  const one = `${list}/:${kind.idParam}`;
  // The context, then the kind's id.
  const Params = Type.Object({ ...ContextIdParams.properties, [kind.idParam]: ObjectId });
  const read = { scope: 'read:hierarchy' } as const;
  const write = { scope: 'write:hierarchy' } as const;
  const tags = [kind.tag];
  const { singular, plural } = kind.names;
  // Only a larger limit: the platform's own (RDP_JSON_BODY_LIMIT_BYTES) may already be above the kind's.
  const bodyLimit =
    kind.bodyLimit === undefined ? {} : { bodyLimit: Math.max(app.platform.config.jsonBodyLimitBytes, kind.bodyLimit) };
  const { computed } = kind;
  // Before the schema, which would refuse the field as unknown without saying why.
  const refuseComputed = computed && {
    preValidation: async (request: { body: unknown }) => {
      const body = request.body;
      if (typeof body !== 'object' || body === null) return;
      for (const field of computed.fields) if (field in body) throw validationError(`body.${field}: ${computed.why}`);
    },
  };

  if (kind.list) {
    const { querystring, response, answer: listAnswer } = kind.list;
    app.get(
      list,
      {
        config: read,
        schema: {
          tags,
          operationId: `list${plural}`,
          ...kind.text.list,
          params: ContextIdParams,
          querystring,
          response: { 200: response(answer), ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => listAnswer(app.services, request.principal, request.params.contextId, request.query),
    );
  } else {
    app.get(
      list,
      {
        config: read,
        schema: {
          tags,
          operationId: `list${plural}`,
          ...kind.text.list,
          params: ContextIdParams,
          querystring: Type.Object({ ...Paging, ...IncludeMetadata }, { additionalProperties: false }),
          response: { 200: Type.Array(answer), ...errors(400, 401, 403, 404) },
        },
      },
      async (request) => {
        const { limit, offset } = request.query;
        const rows = await service.list(request.principal, request.params.contextId, clampLimit(limit), offset ?? 0);
        return rows.map((row) => kind.toBody(row, wantsMetadata(request.query)));
      },
    );
  }

  app.get(
    one,
    {
      config: read,
      schema: {
        tags,
        operationId: `get${singular}`,
        ...kind.text.get,
        params: Params,
        querystring: Type.Object(IncludeMetadata, { additionalProperties: false }),
        response: { 200: answer, ...errors(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const contextId = pathParameter(request.params, 'contextId');
      const id = pathParameter(request.params, kind.idParam);
      return kind.toBody(await service.get(request.principal, contextId, id), wantsMetadata(request.query));
    },
  );

  app.post(
    list,
    {
      config: write,
      schema: {
        tags,
        operationId: `create${singular}`,
        ...kind.text.create,
        params: ContextIdParams,
        body: kind.schemas.create,
        response: { 201: answer, ...errors(400, 401, 403, 404, 409) },
      },
      ...bodyLimit,
      ...refuseComputed,
    },
    async (request, reply) => {
      const { contextId } = request.params;
      const body = kind.toBody(await service.create(request.principal, contextId, request.body), false);
      return created(reply, app.baseUrl, `/v1/twin/${contextId}/${kind.segment}/${body.id}`, body);
    },
  );

  app.patch(
    one,
    {
      config: write,
      schema: {
        tags,
        operationId: `update${singular}`,
        ...kind.text.update,
        params: Params,
        body: kind.schemas.update,
        response: { 200: answer, ...errors(400, 401, 403, 404, 409) },
      },
      ...bodyLimit,
      ...refuseComputed,
    },
    async (request) => {
      const contextId = pathParameter(request.params, 'contextId');
      const id = pathParameter(request.params, kind.idParam);
      return kind.toBody(await service.update(request.principal, contextId, id, request.body), false);
    },
  );

  app.delete(
    one,
    {
      config: write,
      schema: {
        tags,
        operationId: `delete${singular}`,
        ...kind.text.delete,
        params: Params,
        response: { 204: Type.Null(), ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const contextId = pathParameter(request.params, 'contextId');
      const id = pathParameter(request.params, kind.idParam);
      await service.delete(request.principal, contextId, id);
      return reply.code(204).send(null);
    },
  );
}
