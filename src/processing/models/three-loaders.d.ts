// three ships no typings (and @types/three is not installed); this is the part the STL and PLY readers use.
declare module 'three/examples/jsm/loaders/*.js' {
  interface BufferAttributeLike {
    array: ArrayLike<number>;
    count: number;
  }
  export interface BufferGeometryLike {
    index: BufferAttributeLike | null;
    getAttribute(name: string): BufferAttributeLike | undefined;
  }
  export class STLLoader {
    parse(data: ArrayBuffer | string): BufferGeometryLike;
  }
  export class PLYLoader {
    parse(data: ArrayBuffer | string): BufferGeometryLike;
  }
}
