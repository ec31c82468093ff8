// three ships no types and @types/three is not installed: its modules are untyped here, and the
// viewer's own types (viewer-types.ts) carry what crosses the viewer's boundaries.
declare module 'three';
declare module 'three/examples/jsm/controls/OrbitControls.js';
declare module 'three/examples/jsm/loaders/GLTFLoader.js';
