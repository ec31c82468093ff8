import { Type } from '@sinclair/typebox';
import fastJsonStringify from 'fast-json-stringify';
import { describe, expect, it } from 'vitest';
import { NodeDetailSchema, NodeSchema } from './routes/nodes/node-schemas.js';
import { serializationSchema } from './schema-compilers.js';

type Schema = Parameters<typeof fastJsonStringify>[0];

/**
 * Response serializers are built from the schemas as serializationSchema writes them (unions
 * without a validator per branch): the JSON must be the one the schema as declared gives.
 */
describe('serializationSchema', () => {
  const node = (kind: string, i: number) => ({
    id: `node-${i}`,
    name: `Name "${i}" ü`,
    type: kind,
    parentId: i % 3 === 0 ? null : 'parent',
    organizationId: 'org',
    address: kind === 'site' ? '1 Quay Street' : undefined,
    createdAt: '2026-11-25T09:00:00.000Z',
    updatedAt: '2026-11-25T09:00:00.000Z',
    isProcessing: i % 2 === 0,
    isFailed: false,
    trashedAt: i % 4 === 0 ? '2026-11-26T09:00:00.000Z' : null,
  });

  it('writes the JSON of the schema as declared', () => {
    const list = { type: 'array', items: { $ref: 'Node' } } as Schema;
    const declared = fastJsonStringify(list, { schema: { Node: NodeSchema as Schema } });
    const rewritten = fastJsonStringify(list, { schema: { Node: serializationSchema(NodeSchema) as Schema } });
    const page = ['site', 'folder', 'pointCloud', 'dataBundle', 'mesh', 'planningProject'].map(node);
    expect(rewritten(page)).toBe(declared(page));

    const detail = { ...node('site', 3), derivatives: [{ id: 'd', name: 'D' }], sources: [], permissions: ['read', 'download'] };
    expect(fastJsonStringify(serializationSchema(NodeDetailSchema) as Schema)(detail)).toBe(
      fastJsonStringify(NodeDetailSchema as Schema)(detail),
    );
  });

  it('writes unions of literals and nullable types without anyOf, and leaves other unions', () => {
    const schema = Type.Object({
      kind: Type.Union([Type.Literal('a'), Type.Literal('b')], { description: 'kind' }),
      at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      count: Type.Union([Type.Integer(), Type.Null()]),
      either: Type.Union([Type.Object({ x: Type.String() }), Type.Null()]),
    });
    const written = serializationSchema(schema) as { properties: Record<string, unknown> };
    expect(written.properties.kind).toEqual({ description: 'kind', type: 'string', enum: ['a', 'b'] });
    expect(written.properties.at).toEqual({ format: 'date-time', type: ['string', 'null'] });
    expect(written.properties.count).toEqual({ type: ['integer', 'null'] });
    expect((written.properties.either as { anyOf?: unknown }).anyOf).toHaveLength(2);
    // A value of neither type is still refused, as the anyOf refused it.
    const serialize = fastJsonStringify(written as Schema);
    expect(() => serialize({ kind: 'a', at: 5, count: null, either: null })).toThrow(/does not match schema definition/);
  });
});
