import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import fastJsonStringify from 'fast-json-stringify';
import type { FastifyInstance, FastifySchemaCompiler, FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

/** Compilations put off until first use, by app: what compileDeferredSchemas runs. */
const deferredByApp = new WeakMap<FastifyInstance, (() => unknown)[]>();

/**
 * The app's schema compilers, installed as the schema controller's builders. Fastify calls a
 * builder once per context and its compiler once per route and part; the four regions declare
 * the same routes, and compiling each afresh made start-up take seconds (validators first, then
 * response serializers: 3 of the 5.5 s a start took). So each builder keeps one set of compiled
 * functions for the whole app, by the schema's text. Shared schemas are known by $id, which names
 * one schema across the app, so a schema's text means the same wherever it is declared.
 * Each is compiled on its first use, not at start-up: even once per text, compiling them all took
 * about a second of a start (docs/performance.md#start-up-the-causes-of-7-s).
 */
export function schemaCompilers(): { factory: CompilersFactory; register(app: FastifyInstance): void } {
  const deferred: (() => unknown)[] = [];
  return {
    // The declared types are @fastify/ajv-compiler's and the serializer compiler's; ours have the same call shapes.
    factory: {
      buildValidator: validatorFactory(deferred) as unknown as CompilersFactory['buildValidator'],
      buildSerializer: serializerFactory(deferred) as unknown as CompilersFactory['buildSerializer'],
    },
    register: (app) => deferredByApp.set(app, deferred),
  };
}

/** Compiles every schema of the app's routes not compiled yet: how a test proves each one compiles. */
export function compileDeferredSchemas(app: FastifyInstance): number {
  const deferred = deferredByApp.get(app) ?? [];
  for (const compile of deferred) compile();
  return deferred.length;
}

/**
 * Bodies are validated strictly: no coercion, unknown properties refused (no mass assignment).
 * Query strings and path parameters are text, so they are coerced to the declared types.
 * Installed as the schema controller's builder, not with setValidatorCompiler: Fastify drops a
 * root setValidatorCompiler in every child context that calls addSchema (the regional APIs do),
 * which silently brought back its default Ajv that strips unknown properties and coerces bodies.
 * The builder also receives those shared schemas, so $ref to them resolves. One pair of Ajv
 * instances serves every context.
 */
function validatorFactory(deferred: (() => unknown)[]) {
  const strict = { allErrors: false, strict: false, removeAdditional: false, useDefaults: true } as const;
  const bodies = addFormats.default(new Ajv.default({ ...strict, coerceTypes: false }));
  const parameters = addFormats.default(new Ajv.default({ ...strict, coerceTypes: 'array' }));
  const known = new Set<string>();
  const compiled = new Map<string, ReturnType<typeof bodies.compile>>();
  return (externalSchemas: Record<string, unknown> = {}): FastifySchemaCompiler<object> => {
    for (const schema of Object.values(externalSchemas) as { $id?: string }[]) {
      if (schema.$id !== undefined && known.has(schema.$id)) continue;
      bodies.addSchema(schema);
      parameters.addSchema(schema);
      if (schema.$id !== undefined) known.add(schema.$id);
    }
    return ({ schema, httpPart }) => {
      const ajv = httpPart === 'body' ? bodies : parameters;
      let validate: ReturnType<typeof bodies.compile> | undefined;
      const compile = () => {
        if (validate) return validate;
        const key = `${ajv === bodies ? 'b' : 'p'}${JSON.stringify(schema)}`;
        validate = compiled.get(key);
        if (!validate) {
          validate = ajv.compile(schema);
          compiled.set(key, validate);
        }
        return validate;
      };
      deferred.push(compile);
      // Fastify reads the failed validation's errors from the function it was given.
      const lazy = ((data: unknown) => compile()(data)) as ReturnType<typeof bodies.compile>;
      Object.defineProperty(lazy, 'errors', { get: () => validate?.errors });
      return lazy;
    };
  };
}

type Serializer = (data: unknown) => string;

/** The keywords a branch of `T or null` may carry to be serialized as the nullable type `[T, 'null']`. */
const NULLABLE_BRANCH_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'examples',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
]);
const PRIMITIVE_TYPES = new Set(['string', 'number', 'integer', 'boolean']);
/** Keywords whose values are data, not schemas: never rewritten. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'required']);

type SchemaNode = Record<string, unknown>;

/**
 * A response schema as the serializer is given it: the same shape, two kinds of union written the
 * way fast-json-stringify serializes without a validator. fast-json-stringify serializes an anyOf
 * by running an Ajv validator on each branch until one passes, and each failed branch allocates
 * its errors: a page of 20 nodes (a kind among eleven literals, two nullable fields each) spent
 * about a third of its allocations there. So a union of string literals (TypeBox's Union of
 * Literals) is serialized as a string with their enum, and a union of one primitive type with null
 * as the nullable type `[T, 'null']`, which fast-json-stringify checks by `typeof` and still
 * refuses (500) when a value is of neither type. What the branches checked beyond the type (a
 * literal's value, a date-time's format) the serializer no longer checks, as it never did for
 * the same keywords outside a union: the body is what the route made, shaped, not validated.
 */
export function serializationSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializationSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const node: SchemaNode = {};
  for (const [key, value] of Object.entries(schema)) node[key] = DATA_KEYWORDS.has(key) ? value : serializationSchema(value);
  const { anyOf, ...rest } = node;
  if (!Array.isArray(anyOf) || anyOf.length === 0 || rest.type !== undefined) return node;
  const branches = anyOf as SchemaNode[];
  const literal = (branch: SchemaNode) =>
    branch.type === 'string' && typeof branch.const === 'string' && Object.keys(branch).length === 2;
  if (branches.every(literal)) return { ...rest, type: 'string', enum: branches.map((branch) => branch.const) };
  const isNull = (branch: SchemaNode) => branch.type === 'null' && Object.keys(branch).length === 1;
  const other = branches.length === 2 ? branches.find((branch) => !isNull(branch)) : undefined;
  if (
    other &&
    branches.some(isNull) &&
    typeof other.type === 'string' &&
    PRIMITIVE_TYPES.has(other.type) &&
    Object.keys(other).every((key) => NULLABLE_BRANCH_KEYWORDS.has(key))
  ) {
    return { ...other, ...rest, type: [other.type, 'null'] };
  }
  return node;
}

/**
 * Response serializers (fast-json-stringify, as Fastify's default compiler builds them, with the
 * context's shared schemas for $ref), each built once per schema text for the whole app, from the
 * schemas as serializationSchema writes them.
 */
function serializerFactory(deferred: (() => unknown)[]) {
  const compiled = new Map<string, Serializer>();
  return (externalSchemas: Record<string, unknown> = {}, serializerOptions: Record<string, unknown> = {}) =>
    ({ schema }: { schema: { $id?: string } }): Serializer => {
      let serialize: Serializer | undefined;
      const compile = (): Serializer => {
        if (serialize) return serialize;
        const key = JSON.stringify(schema);
        serialize = compiled.get(key);
        if (!serialize) {
          // As Fastify's default does: a schema that is itself shared is not also its own external schema.
          const shared: Record<string, unknown> = {};
          for (const [id, external] of Object.entries(externalSchemas)) {
            if (id !== schema.$id) shared[id] = serializationSchema(external);
          }
          type Schema = Parameters<typeof fastJsonStringify>[0];
          const options = { ...serializerOptions, schema: shared as Record<string, Schema> };
          serialize = fastJsonStringify(serializationSchema(schema) as Schema, options) as Serializer;
          compiled.set(key, serialize);
        }
        return serialize;
      };
      deferred.push(compile);
      return (data) => compile()(data);
    };
}
