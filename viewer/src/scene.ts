import {
  Color,
  DirectionalLight,
  HemisphereLight,
  PerspectiveCamera,
  Scene,
  Vector3 as ThreeVector3,
  WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import type { EyeDomeLighting } from './eye-dome.js';
import type { CameraState, Vector3 } from './protocol.js';

/**
 * The three.js scene in a frame shifted by `origin` (a twin point near the data), so that grid
 * coordinates in the millions keep their precision on the GPU: a scene point s is the twin
 * point origin + s. Z is up, as in the twin.
 */
export class ViewerScene {
  readonly scene = new Scene();
  readonly camera = new PerspectiveCamera(60, 1, 0.05, 1e6);
  readonly renderer: WebGLRenderer;
  readonly controls: OrbitControls;
  origin: Vector3 = { x: 0, y: 0, z: 0 };
  /** Called before each frame (tiles update, labels follow); the loop stops once `stopped`. */
  readonly beforeRender: Array<() => void> = [];
  readonly afterRender: Array<() => void> = [];
  readonly afterCameraChange: Array<() => void> = [];
  frames = 0;
  stopped = false;
  /** When set, frames are drawn through eye-dome lighting (eye-dome.ts). */
  eyeDome: EyeDomeLighting | null = null;
  /**
   * Light for what is drawn with lit materials (mesh layers' tiles, placed models' previews; points
   * are not lit): sky and ground, and a light from the camera, so a surface faced is never dark.
   */
  private readonly headlight = new DirectionalLight(0xffffff, 1.5);
  private flight: ((now: number) => boolean) | null = null;

  /** How many flyTo flights have landed (the viewer's status shows it: a page waits on it). */
  flightsLanded = 0;

  constructor(readonly container: HTMLElement) {
    this.renderer = new WebGLRenderer({ antialias: false, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(Math.min(window.devicePixelRatio, 2));
    this.scene.background = new Color(0x202428);
    this.camera.up.set(0, 0, 1);
    this.camera.position.set(30, -30, 30);
    const sky = new HemisphereLight(0xffffff, 0x5a5a5a, 1.5);
    sky.position.set(0, 0, 1);
    this.scene.add(sky, this.headlight, this.headlight.target);
    container.appendChild(this.renderer.domElement);
    this.renderer.domElement.style.display = 'block';
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.addEventListener('change', () => this.cameraMoved());
    window.addEventListener('resize', () => this.resize());
    this.resize();
  }

  resize(): void {
    const width = this.container.clientWidth || 1;
    const height = this.container.clientHeight || 1;
    this.renderer.setSize(width, height);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
  }

  start(): void {
    const frame = (now: number) => {
      if (this.stopped) return;
      if (this.flight && !this.flight(now)) this.flight = null;
      for (const step of this.beforeRender) step();
      this.headlight.position.copy(this.camera.position);
      this.headlight.target.position.copy(this.controls.target);
      this.headlight.target.updateMatrixWorld();
      if (this.eyeDome) this.eyeDome.render(this.renderer, this.scene, this.camera);
      else this.renderer.render(this.scene, this.camera);
      this.frames += 1;
      for (const step of this.afterRender) step();
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  toScene(point: Vector3): ThreeVector3 {
    return new ThreeVector3(point.x - this.origin.x, point.y - this.origin.y, point.z - this.origin.z);
  }

  toTwin(point: { x: number; y: number; z: number }): Vector3 {
    return { x: point.x + this.origin.x, y: point.y + this.origin.y, z: point.z + this.origin.z };
  }

  getCamera(): CameraState {
    return {
      position: this.toTwin(this.camera.position),
      target: this.toTwin(this.controls.target),
      fov: this.camera.fov,
    };
  }

  setCamera(camera: Partial<CameraState> & { position: Vector3; target: Vector3 }): CameraState {
    this.flight = null;
    this.camera.position.copy(this.toScene(camera.position));
    this.controls.target.copy(this.toScene(camera.target));
    if (camera.fov !== undefined) {
      this.camera.fov = camera.fov;
      this.camera.updateProjectionMatrix();
    }
    this.fitClipping();
    this.controls.update();
    this.cameraMoved();
    return this.getCamera();
  }

  /** Moves the camera to `camera` over `durationMs`, resolving with where it ends. */
  flyTo(camera: CameraState, durationMs = 800): Promise<CameraState> {
    const fromPosition = this.camera.position.clone();
    const fromTarget = this.controls.target.clone();
    const toPosition = this.toScene(camera.position);
    const toTarget = this.toScene(camera.target);
    if (durationMs <= 0) {
      this.flightsLanded += 1;
      return Promise.resolve(this.setCamera(camera));
    }
    return new Promise((resolve) => {
      let started: number | undefined;
      this.flight = (now) => {
        started ??= now;
        const t = Math.min(1, (now - started) / durationMs);
        const eased = t * t * (3 - 2 * t);
        this.camera.position.lerpVectors(fromPosition, toPosition, eased);
        this.controls.target.lerpVectors(fromTarget, toTarget, eased);
        if (t < 1) {
          this.controls.update();
          return true;
        }
        this.flightsLanded += 1;
        resolve(this.setCamera(camera));
        return false;
      };
    });
  }

  /** Near and far planes that suit the distance to the target, so small and large sites both show. */
  fitClipping(): void {
    const distance = Math.max(this.camera.position.distanceTo(this.controls.target), 0.1);
    this.camera.near = Math.max(distance / 1000, 0.01);
    this.camera.far = Math.max(distance * 1000, 1000);
    this.camera.updateProjectionMatrix();
  }

  private cameraMoved(): void {
    for (const listener of this.afterCameraChange) listener();
  }
}
