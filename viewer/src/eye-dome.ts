import {
  type Camera,
  DepthTexture,
  Mesh,
  OrthographicCamera,
  type PerspectiveCamera,
  PlaneGeometry,
  Scene,
  ShaderMaterial,
  Vector2,
  type WebGLRenderer,
  WebGLRenderTarget,
} from 'three';

const VERTEX = /* glsl */ `
varying vec2 vUv;
void main() {
  vUv = uv;
  gl_Position = vec4(position.xy, 0.0, 1.0);
}
`;

/**
 * Eye-dome lighting: each pixel darkened by how much nearer its neighbours are (in log depth),
 * which outlines the shapes of a point cloud that has no normals to light. Background
 * neighbours add nothing, so a lone point keeps its colour.
 */
const FRAGMENT = /* glsl */ `
uniform sampler2D tColor;
uniform sampler2D tDepth;
uniform vec2 uTexel;
uniform float uNear;
uniform float uFar;
uniform float uStrength;
varying vec2 vUv;

float logDepth(float depth) {
  float ndc = depth * 2.0 - 1.0;
  return log2((2.0 * uNear * uFar) / (uFar + uNear - ndc * (uFar - uNear)));
}

void main() {
  vec4 color = texture2D(tColor, vUv);
  float depth = texture2D(tDepth, vUv).x;
  float shade = 1.0;
  if (depth < 1.0) {
    float centre = logDepth(depth);
    float sum = 0.0;
    for (int i = 0; i < 8; i++) {
      float angle = float(i) * 0.7853981634;
      float neighbour = texture2D(tDepth, vUv + vec2(cos(angle), sin(angle)) * uTexel * 1.4).x;
      if (neighbour < 1.0) sum += max(0.0, centre - logDepth(neighbour));
    }
    shade = exp(-sum / 8.0 * 300.0 * uStrength);
  }
  gl_FragColor = vec4(color.rgb * shade, 1.0);
  #include <colorspace_fragment>
}
`;

/** The scene drawn into a colour and depth target, then to the canvas through the eye-dome pass. */
export class EyeDomeLighting {
  private readonly target = new WebGLRenderTarget(1, 1, { depthTexture: new DepthTexture(1, 1) });
  private readonly pass = new Scene();
  private readonly passCamera = new OrthographicCamera(-1, 1, 1, -1, 0, 1);
  private readonly material = new ShaderMaterial({
    uniforms: {
      tColor: { value: this.target.texture },
      tDepth: { value: this.target.depthTexture },
      uTexel: { value: new Vector2(1, 1) },
      uNear: { value: 0.1 },
      uFar: { value: 1000 },
      uStrength: { value: 1 },
    },
    vertexShader: VERTEX,
    fragmentShader: FRAGMENT,
    depthTest: false,
    depthWrite: false,
  });
  private readonly size = new Vector2();

  constructor() {
    this.pass.add(new Mesh(new PlaneGeometry(2, 2), this.material));
  }

  render(renderer: WebGLRenderer, scene: Scene, camera: Camera): void {
    renderer.getDrawingBufferSize(this.size);
    if (this.target.width !== this.size.x || this.target.height !== this.size.y) this.target.setSize(this.size.x, this.size.y);
    const { uniforms } = this.material;
    uniforms.uTexel!.value.set(1 / this.size.x, 1 / this.size.y);
    uniforms.uNear!.value = (camera as PerspectiveCamera).near;
    uniforms.uFar!.value = (camera as PerspectiveCamera).far;
    renderer.setRenderTarget(this.target);
    renderer.render(scene, camera);
    renderer.setRenderTarget(null);
    renderer.render(this.pass, this.passCamera);
  }

  dispose(): void {
    this.target.dispose();
    this.material.dispose();
  }
}
