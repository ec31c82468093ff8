import { describe, expect, it } from 'vitest';
import { detectFormat, inputKind, isCompatible } from './file-formats.js';
import { glbJsonChunk, gltfTriangles, MESH_MAX_TRIANGLES, meshLimitRefusal, plyFaceCount } from './mesh-formats.js';

const ply = (faces: number | null) =>
  Buffer.from(
    [
      'ply',
      'format ascii 1.0',
      'element vertex 3',
      'property float x',
      'property float y',
      'property float z',
      ...(faces === null ? [] : [`element face ${faces}`, 'property list uchar int vertex_indices']),
      'end_header',
      '0 0 0',
      '1 0 0',
      '0 1 0',
      ...(faces ? ['3 0 1 2'] : []),
      '',
    ].join('\n'),
  );

/** A GLB of just its header and JSON chunk (finalize reads no further). */
function glb(json: unknown): Buffer {
  let text = JSON.stringify(json);
  while (text.length % 4) text += ' ';
  const header = Buffer.alloc(20);
  header.write('glTF', 0, 'latin1');
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + text.length, 8);
  header.writeUInt32LE(text.length, 12);
  header.write('JSON', 16, 'latin1');
  return Buffer.concat([header, Buffer.from(text)]);
}

describe('mesh inputs, by their content', () => {
  it('tells OBJ, MTL, glTF, GLB and a PLY with faces from other text, JSON and point clouds', () => {
    const obj =
      '# exported\r\nmtllib scan.mtl\r\no scan\r\nv 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\nvt 0 0\r\nusemtl a\r\ns off\r\nf 1/1 2/1 3/1\r\n';
    expect(detectFormat(Buffer.from(obj))).toBe('obj');
    expect(detectFormat(Buffer.from('newmtl wall\nKd 1 1 1\nmap_Kd wall.png\n'))).toBe('mtl');
    expect(detectFormat(Buffer.from('{"asset":{"generator":"x","version":"2.0"},"scene":0}'))).toBe('gltf');
    expect(detectFormat(glb({ asset: { version: '2.0' } }))).toBe('glb');
    expect(detectFormat(ply(1))).toBe('ply-mesh');
    // Without faces, or with none declared, a PLY stays a point cloud.
    expect(detectFormat(ply(0))).toBe('ply');
    expect(detectFormat(ply(null))).toBe('ply');
    // Prose, other JSON, numbers: not meshes.
    expect(detectFormat(Buffer.from('vertices and faces are described below\nf is for face\n'))).toBe('text');
    expect(detectFormat(Buffer.from('{"version":"2.0","asset":"none"}'))).toBe('json');
    expect(detectFormat(Buffer.from('1 2 3\n4 5 6\n'))).toBe('text-points');
    // A GLB of another version is not one we read.
    const version1 = glb({ asset: { version: '1.0' } });
    version1.writeUInt32LE(1, 4);
    expect(detectFormat(version1)).toBeNull();
  });

  it('makes the mesh files inputs, not their materials; a .ply and .json take a mesh, a .obj only an OBJ', () => {
    expect(['obj', 'gltf', 'glb', 'ply-mesh'].map(inputKind)).toEqual(['mesh', 'mesh', 'mesh', 'mesh']);
    expect(inputKind('mtl')).toBeNull();
    expect(inputKind('ply')).toBe('point-cloud');
    expect(isCompatible('ply', 'ply-mesh')).toBe(true);
    expect(isCompatible('json', 'gltf')).toBe(true);
    expect(isCompatible('text', 'obj')).toBe(true);
    expect(isCompatible('obj', 'text')).toBe(false);
    expect(isCompatible('glb', null)).toBe(false);
    expect(isCompatible('gltf', 'json')).toBe(false);
  });

  it('reads the faces a PLY header declares, and nothing from a header the bytes cut', () => {
    expect(plyFaceCount(ply(25_000_000))).toBe(25_000_000);
    expect(plyFaceCount(ply(null))).toBe(0);
    expect(plyFaceCount(ply(5).subarray(0, 40))).toBeUndefined();
  });

  it("counts a glTF's triangles from its accessors: by mode, indexed or not, once per node using the mesh", () => {
    const accessors = [{ count: 300 }, { count: 30 }, { count: 12 }];
    const meshes = [
      { primitives: [{ attributes: { POSITION: 0 }, indices: 1 }, { attributes: { POSITION: 0 } }] },
      {
        primitives: [
          { attributes: { POSITION: 2 }, mode: 5 },
          { attributes: { POSITION: 2 }, mode: 1 },
        ],
      },
    ];
    // Mesh 0: 10 + 100 triangles, used by two nodes; mesh 1: a strip of 12 vertices (10), used by none.
    expect(gltfTriangles({ accessors, meshes, nodes: [{ mesh: 0 }, { mesh: 0 }, {}] })).toBe(230);
    expect(gltfTriangles({ asset: { version: '2.0' } })).toBe(0);
    expect(gltfTriangles(null)).toBe(0);
    expect(glbJsonChunk(glb({ a: 1 }))).toEqual({ start: 20, length: 8 });
  });

  it('names the limit an input exceeds', () => {
    const within = { name: 'scan.ply', sessionBytes: 1000, maxBytes: 1000, triangles: MESH_MAX_TRIANGLES };
    expect(meshLimitRefusal(within)).toBeNull();
    expect(meshLimitRefusal({ ...within, triangles: undefined })).toBeNull();
    expect(meshLimitRefusal({ ...within, sessionBytes: 1001 })).toMatch(/at most 1000 bytes/);
    expect(meshLimitRefusal({ ...within, triangles: MESH_MAX_TRIANGLES + 1 })).toMatch(/scan\.ply .*at most 20 million/);
  });
});
