import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { SelectField, VectorFields } from './fields.js';
import { NO_ROTATION, type Vector3 } from './twin-api.js';
import type { ClipBox, ColorMode, ToolName, ViewerRemote } from './viewer-link.js';

/** The viewer's tools (docs/viewer.md, "Methods": setTool), in the order the toolbar shows them. */
const TOOLS: { name: ToolName; label: string }[] = [
  { name: 'select', label: 'Select' },
  { name: 'distance', label: 'Distance' },
  { name: 'height', label: 'Height' },
  { name: 'polyline', label: 'Polyline' },
  { name: 'area', label: 'Area' },
  { name: 'angle', label: 'Angle' },
  { name: 'clipBox', label: 'Clip box' },
  { name: 'sectionPlane', label: 'Section plane' },
];

const COLOR_MODES: { value: ColorMode; label: string }[] = [
  { value: 'rgb', label: 'Scan colours (RGB)' },
  { value: 'intensity', label: 'Intensity' },
  { value: 'elevation', label: 'Elevation' },
  { value: 'classification', label: 'Classification' },
  { value: 'single', label: 'Single colour' },
];

const HINTS: Record<ToolName, string> = {
  select: 'Click a label to select it; click the scan to pick a position.',
  distance: 'Click two points of the scan. Backspace removes the last point; Escape goes back to Select.',
  height: 'Click two points of the scan: the height between them. Escape goes back to Select.',
  polyline: 'Click the points of the line; Enter or a double-click finishes it. Backspace removes the last point.',
  area: 'Click the corners of the area; Enter or a double-click finishes it. Backspace removes the last point.',
  angle: 'Click three points: the angle is at the middle one. Escape goes back to Select.',
  clipBox: 'Click the scan: a box centred on that point keeps what is inside it. Backspace removes it.',
  sectionPlane: 'Click the scan: only a 0.5 m slice through that point, facing you, stays. Backspace removes it.',
};

/**
 * Over the framed viewer: its tools (the active one as the viewer reports it, toolChanged), how
 * the points are coloured, and a clip box; each a call of the viewer's postMessage API. The
 * colour mode and the clip box are sent again whenever the view loads again (`readyKey`).
 */
export function ViewerToolbar(props: {
  remote: { current: ViewerRemote | undefined };
  /** The tool the viewer reports; undefined until the view is ready. */
  tool: ToolName | undefined;
  /** Counts the view's loads: each is a fresh viewer. */
  readyKey: number;
  /** The box a new clip box starts as: the twin's first layer's. */
  layerBox: { min: Vector3; max: Vector3 } | undefined;
}) {
  const [colorMode, setColorMode] = useState<ColorMode>('rgb');
  const [clipBox, setClipBox] = useState<ClipBox | null>(null);
  const [clipping, setClipping] = useState(false);
  const [error, setError] = useState<unknown>();
  const ready = props.tool !== undefined;

  async function call(action: (remote: ViewerRemote) => Promise<unknown>) {
    const remote = props.remote.current;
    if (!remote) return;
    setError(undefined);
    try {
      await action(remote);
    } catch (failure) {
      setError(failure);
    }
  }

  useEffect(() => {
    if (!ready) return;
    if (colorMode !== 'rgb') void call((remote) => remote.setColorMode(colorMode));
    if (clipBox) void call((remote) => remote.setClipBox(clipBox));
  }, [props.readyKey, ready]);

  return (
    <div class="viewer-toolbar">
      <fieldset class="tool-buttons">
        <legend class="visually-hidden">Tools of the 3D view</legend>
        {TOOLS.map((tool) => (
          <button
            key={tool.name}
            type="button"
            class={props.tool === tool.name ? 'tool active' : 'tool'}
            aria-pressed={props.tool === tool.name}
            disabled={!ready}
            onClick={() => call((remote) => remote.setTool(tool.name))}
          >
            {tool.label}
          </button>
        ))}
      </fieldset>
      <div class="view-settings">
        <SelectField
          label="Colour points by"
          value={colorMode}
          onValue={(value) => {
            const mode = value as ColorMode;
            setColorMode(mode);
            void call((remote) => remote.setColorMode(mode));
          }}
          options={COLOR_MODES}
        />
        {clipBox ? (
          <button
            type="button"
            disabled={!ready}
            onClick={() =>
              call(async (remote) => {
                await remote.setClipBox(null);
                setClipBox(null);
              })
            }
          >
            Remove the clip box
          </button>
        ) : (
          <button type="button" disabled={!ready} onClick={() => setClipping(true)}>
            Clip box…
          </button>
        )}
      </div>
      <ErrorNotice error={error} />
      {clipping && (
        <ClipBoxDialog
          start={props.layerBox}
          onClip={async (box) => {
            const remote = props.remote.current;
            if (!remote) throw new Error('The 3D view is not ready');
            await remote.setClipBox(box);
            setClipBox(box);
            setClipping(false);
          }}
          onClose={() => setClipping(false)}
        />
      )}
    </div>
  );
}

/** How the active tool is used, under the view (there a longer hint moves nothing the person is clicking). */
export function ToolHint(props: { tool: ToolName | undefined }) {
  return (
    <p class="tool-hint" aria-live="polite">
      {props.tool ? HINTS[props.tool] : ''}
    </p>
  );
}

/** A box along the twin's axes (centre and size in metres) outside which the view hides the points. */
function ClipBoxDialog(props: {
  start: { min: Vector3; max: Vector3 } | undefined;
  onClip: (box: ClipBox) => Promise<void>;
  onClose: () => void;
}) {
  const box = props.start ?? { min: { x: -10, y: -10, z: -10 }, max: { x: 10, y: 10, z: 10 } };
  const round = (value: number) => Math.round(value * 100) / 100;
  const [center, setCenter] = useState<Vector3>({
    x: round((box.min.x + box.max.x) / 2),
    y: round((box.min.y + box.max.y) / 2),
    z: round((box.min.z + box.max.z) / 2),
  });
  const [size, setSize] = useState<Vector3>({
    x: round(box.max.x - box.min.x) || 1,
    y: round(box.max.y - box.min.y) || 1,
    z: round(box.max.z - box.min.z) || 1,
  });
  return (
    <FormDialog
      title="Clip box"
      submit="Clip"
      onSubmit={() => props.onClip({ center, size, rotation: NO_ROTATION })}
      onClose={props.onClose}
    >
      <p>The 3D view shows only the points inside this box (it starts as the first layer's extent). Nothing is saved.</p>
      <VectorFields legend="Centre (metres)" value={center} onValue={setCenter} />
      <VectorFields legend="Size (metres)" value={size} onValue={setSize} min={0.01} />
    </FormDialog>
  );
}
