import {
  type BufferGeometry,
  Color,
  Matrix4,
  Quaternion,
  ShaderMaterial,
  Vector3 as ThreeVector3,
  Vector2,
  Vector4,
} from 'three';
import { type Comparison, HEAT_COLORS, NOT_COMPUTABLE_BELOW } from './distance-ramp.js';
import type { ClipBox, ColorMode, Vector3 } from './protocol.js';
import type { ViewerScene } from './scene.js';

/** The colour modes in the shader's order (uMode). */
export const COLOR_MODES: ColorMode[] = ['rgb', 'intensity', 'elevation', 'classification', 'single'];
const SINGLE_COLOR = '#e8e8e8';
export const DEFAULT_POINT_BUDGET = 5_000_000;
/** A section plane keeps the points this near it on either side: a 0.5 m slice. */
export const SECTION_HALF_THICKNESS = 0.25;

/** ASPRS LAS 1.4 standard classes (R15), the legend's names and the shader's colours. */
export const ASPRS_CLASSES: { code: number; name: string; color: string }[] = [
  { code: 0, name: 'Created, never classified', color: '#a0a0a0' },
  { code: 1, name: 'Unclassified', color: '#d0d0d0' },
  { code: 2, name: 'Ground', color: '#a0522d' },
  { code: 3, name: 'Low vegetation', color: '#9acd32' },
  { code: 4, name: 'Medium vegetation', color: '#32cd32' },
  { code: 5, name: 'High vegetation', color: '#006400' },
  { code: 6, name: 'Building', color: '#ff8c00' },
  { code: 7, name: 'Low point (noise)', color: '#ff00ff' },
  { code: 8, name: 'Reserved', color: '#808080' },
  { code: 9, name: 'Water', color: '#1e90ff' },
  { code: 10, name: 'Rail', color: '#8b4513' },
  { code: 11, name: 'Road surface', color: '#505050' },
  { code: 12, name: 'Reserved', color: '#808080' },
  { code: 13, name: 'Wire – guard (shield)', color: '#ffd700' },
  { code: 14, name: 'Wire – conductor (phase)', color: '#ffff00' },
  { code: 15, name: 'Transmission tower', color: '#dc143c' },
  { code: 16, name: 'Wire-structure connector', color: '#ff6347' },
  { code: 17, name: 'Bridge deck', color: '#b0c4de' },
  { code: 18, name: 'High noise', color: '#ff1493' },
];

const VERTEX = /* glsl */ `
uniform int uMode;
uniform vec3 uSingle;
uniform vec2 uHeights;
uniform float uSize;
uniform bool uClip;
uniform mat4 uClipInverse;
uniform bool uSection;
uniform vec4 uSectionPlane;
uniform float uSectionHalf;
uniform float uKeep;
uniform vec3 uClasses[19];
#ifdef HAS_INTENSITY
attribute float _intensity;
#endif
#ifdef HAS_CLASSIFICATION
attribute float _classification;
#endif
#ifdef HAS_DISTANCE
attribute float _distance;
// The layer's comparison: tolerance, maxDistance (metres), 1 for signed distances (M3C2).
uniform vec3 uDistanceRange;
uniform vec3 uHeatWithin;
uniform vec3 uHeatMiddle;
uniform vec3 uHeatFar;
uniform vec3 uHeatBelow;
uniform vec3 uHeatCentre;
uniform vec3 uHeatBeyond;

// docs/comparisons-viewer.md: C2C green to the tolerance, through yellow to red at maxDistance;
// M3C2 blue-white-red, white within the tolerance; grey beyond maxDistance or not computable.
vec3 heat(float d) {
  float tolerance = uDistanceRange.x;
  float maxDistance = uDistanceRange.y;
  float span = max(maxDistance - tolerance, 1e-9);
  if (uDistanceRange.z > 0.5) {
    if (d < NOT_COMPUTABLE_BELOW || abs(d) > maxDistance) return uHeatBeyond;
    float s = clamp((abs(d) - tolerance) / span, 0.0, 1.0);
    return mix(uHeatCentre, d < 0.0 ? uHeatBelow : uHeatFar, s);
  }
  if (d < 0.0 || d > maxDistance) return uHeatBeyond;
  float s = clamp((d - tolerance) / span, 0.0, 1.0);
  return s < 0.5 ? mix(uHeatWithin, uHeatMiddle, 2.0 * s) : mix(uHeatMiddle, uHeatFar, 2.0 * s - 1.0);
}
#endif
varying vec3 vColor;

vec3 ramp(float t) {
  t = clamp(t, 0.0, 1.0);
  return clamp(vec3(1.5 - abs(4.0 * t - 3.0), 1.5 - abs(4.0 * t - 2.0), 1.5 - abs(4.0 * t - 1.0)), 0.0, 1.0);
}

void main() {
  vec4 world = modelMatrix * vec4(position, 1.0);
  // Hidden: outside the clip box, off the section's slice, or thinned by the point budget (a
  // low-discrepancy pick of uKeep of the points, whatever their order in the tile).
  bool hidden = uClip && any(greaterThan(abs((uClipInverse * world).xyz), vec3(0.5)));
  hidden = hidden || (uSection && abs(dot(uSectionPlane.xyz, world.xyz) + uSectionPlane.w) > uSectionHalf);
  hidden = hidden || (uKeep < 1.0 && fract(float(gl_VertexID) * 0.6180339887) >= uKeep);
  if (hidden) {
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);
    gl_PointSize = 0.0;
    return;
  }
  vec3 grey = vec3(0.6);
#ifdef HAS_DISTANCE
  // A comparison layer is its heat map, whatever the colour mode.
  vColor = heat(_distance);
#else
  if (uMode == 0) {
#if defined(USE_COLOR_ALPHA)
    vColor = color.rgb;
#elif defined(USE_COLOR)
    vColor = color;
#else
    vColor = uSingle;
#endif
  } else if (uMode == 1) {
#ifdef HAS_INTENSITY
    vColor = vec3(_intensity);
#else
    vColor = grey;
#endif
  } else if (uMode == 2) {
    vColor = ramp((world.z - uHeights.x) / max(uHeights.y - uHeights.x, 1e-6));
  } else if (uMode == 3) {
#ifdef HAS_CLASSIFICATION
    int code = int(_classification + 0.5);
    vColor = code < 19 ? uClasses[code] : grey;
#else
    vColor = grey;
#endif
  } else {
    vColor = uSingle;
  }
#endif
  gl_Position = projectionMatrix * viewMatrix * world;
  gl_PointSize = uSize;
}
`;

const FRAGMENT = /* glsl */ `
varying vec3 vColor;
void main() {
  gl_FragColor = vec4(vColor, 1.0);
  #include <colorspace_fragment>
}
`;

/** A comparison layer's uniform for the shader's heat map: tolerance, maxDistance, 1 when signed (M3C2). */
export type HeatRange = { value: ThreeVector3 };

/** The heat map's range of a comparison (docs/comparisons-viewer.md), one uniform per layer. */
export function heatRangeOf(comparison: Comparison): HeatRange {
  return { value: new ThreeVector3(comparison.tolerance, comparison.maxDistance, comparison.method === 'm3c2' ? 1 : 0) };
}

/**
 * How the points of every layer are drawn (docs/design/measurements.md, "Viewer tools"): a
 * colour mode (rgb; intensity and classification from the tiles' `_INTENSITY` and
 * `_CLASSIFICATION`, grey where a tile lacks them; elevation, a ramp over the layers' height
 * range; a single colour), the point size, a point budget, and a clip box and a section plane
 * that hide points on the GPU, without fetching again. One set of uniforms is shared by every tile's material.
 */
export class PointStyle {
  mode: ColorMode = 'rgb';
  clipBox: ClipBox | null = null;
  /** Each point's width in CSS pixels (setPointSize). */
  pointSize = 1;
  /** The most points drawn in a frame (setPointBudget). */
  pointBudget = DEFAULT_POINT_BUDGET;
  section: { point: Vector3; normal: Vector3 } | null = null;
  /** The class codes of the tiles made so far (for the legend), and what to call when one is new. */
  readonly classesSeen = new Set<number>();
  onNewClass: () => void = () => undefined;
  private readonly uniforms = {
    uMode: { value: 0 },
    uSingle: { value: new Color(SINGLE_COLOR) },
    uHeights: { value: new Vector2(0, 1) },
    uSize: { value: 1 },
    uClip: { value: false },
    uClipInverse: { value: new Matrix4() },
    uSection: { value: false },
    uSectionPlane: { value: new Vector4() },
    uSectionHalf: { value: SECTION_HALF_THICKNESS },
    uKeep: { value: 1 },
    uClasses: { value: ASPRS_CLASSES.map((entry) => new Color(entry.color)) },
    uHeatWithin: { value: new Color(HEAT_COLORS.within) },
    uHeatMiddle: { value: new Color(HEAT_COLORS.middle) },
    uHeatFar: { value: new Color(HEAT_COLORS.far) },
    uHeatBelow: { value: new Color(HEAT_COLORS.below) },
    uHeatCentre: { value: new Color(HEAT_COLORS.centre) },
    uHeatBeyond: { value: new Color(HEAT_COLORS.beyond) },
  };

  constructor(private readonly viewer: ViewerScene) {
    this.setPointSize(1);
  }

  /**
   * A tile's material: its defines say which attributes the geometry has; the uniforms are the
   * shared ones, plus, for a comparison layer's tile with `_DISTANCE`, its layer's range (heatRange).
   */
  materialFor(geometry: BufferGeometry, heatRange?: HeatRange): ShaderMaterial {
    const color = geometry.getAttribute('color');
    const defines: Record<string, string> = {};
    const heat = heatRange && geometry.getAttribute('_distance') ? heatRange : undefined;
    if (heat) {
      defines.HAS_DISTANCE = '';
      defines.NOT_COMPUTABLE_BELOW = NOT_COMPUTABLE_BELOW.toExponential();
    }
    if (geometry.getAttribute('_intensity')) defines.HAS_INTENSITY = '';
    const classification = geometry.getAttribute('_classification');
    if (classification) {
      defines.HAS_CLASSIFICATION = '';
      const before = this.classesSeen.size;
      for (let i = 0; i < classification.count; i += 1) this.classesSeen.add(Math.round(classification.getX(i)));
      if (this.classesSeen.size > before) this.onNewClass();
    }
    return new ShaderMaterial({
      // The shared uniform objects themselves: a change of mode or clip box reaches every tile.
      uniforms: heat ? { ...this.uniforms, uDistanceRange: heat } : this.uniforms,
      vertexShader: VERTEX,
      fragmentShader: FRAGMENT,
      defines,
      vertexColors: Boolean(color),
    });
  }

  setMode(mode: ColorMode): ColorMode {
    const index = COLOR_MODES.indexOf(mode);
    if (index < 0) throw new Error(`no colour mode is named ${String(mode)}: one of ${COLOR_MODES.join(', ')}`);
    this.mode = mode;
    this.uniforms.uMode.value = index;
    return mode;
  }

  /** The elevation ramp's range, twin z (the layers' boxes). */
  setHeights(min: number, max: number): void {
    this.uniforms.uHeights.value.set(min - this.viewer.origin.z, max - this.viewer.origin.z);
  }

  setPointSize(pixels: number): void {
    this.pointSize = pixels;
    this.uniforms.uSize.value = pixels * this.viewer.renderer.getPixelRatio();
  }

  /** Whether a scene point is outside the clip box or the section's slice, so not drawn: picking and snapping pass over it. */
  hides(scenePoint: ThreeVector3): boolean {
    const plane = this.uniforms.uSectionPlane.value;
    if (this.uniforms.uSection.value) {
      const distance = plane.x * scenePoint.x + plane.y * scenePoint.y + plane.z * scenePoint.z + plane.w;
      if (Math.abs(distance) > SECTION_HALF_THICKNESS) return true;
    }
    if (!this.uniforms.uClip.value) return false;
    const local = scenePoint.clone().applyMatrix4(this.uniforms.uClipInverse.value);
    return Math.abs(local.x) > 0.5 || Math.abs(local.y) > 0.5 || Math.abs(local.z) > 0.5;
  }

  /** The section plane through `point` (twin frame) with unit `normal`, or null for none. */
  setSection(section: { point: Vector3; normal: Vector3 } | null): void {
    this.section = section;
    this.uniforms.uSection.value = section !== null;
    if (!section) return;
    const { normal } = section;
    const at = this.viewer.toScene(section.point);
    this.uniforms.uSectionPlane.value.set(normal.x, normal.y, normal.z, -(normal.x * at.x + normal.y * at.y + normal.z * at.z));
  }

  /** Thins the points drawn to the budget: `shown` is how many the tiles drawn hold (called each frame). */
  applyBudget(shown: number): void {
    this.uniforms.uKeep.value = shown > this.pointBudget ? this.pointBudget / shown : 1;
  }

  /** An oriented box (twin frame) outside which no point is drawn, or null for none. */
  setClipBox(box: ClipBox | null): void {
    this.clipBox = box;
    this.uniforms.uClip.value = box !== null;
    if (!box) return;
    const { center, size, rotation } = box;
    const matrix = new Matrix4().compose(
      this.viewer.toScene(center),
      new Quaternion(rotation.x, rotation.y, rotation.z, rotation.w),
      new ThreeVector3(size.x, size.y, size.z),
    );
    this.uniforms.uClipInverse.value.copy(matrix).invert();
  }
}
