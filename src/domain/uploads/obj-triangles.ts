/**
 * The triangles of a Wavefront OBJ, counted from its bytes as they are read (docs/processing.md,
 * "Mesh inputs"): each `f` statement of n corners is n - 2 triangles, as the OBJ reader fans a
 * polygon. Its lines are read as the reader reads them: blanks before the keyword skipped, the
 * corners ending at the line's end, a CR or a `#`. No I/O and no strings: the caller gives the
 * file's chunks in order, so a file of any size is never held whole.
 */

const NEWLINE = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const HASH = 35;
const LOWER_F = 102;

/** Where the scan is in its line; a line may span chunks. */
const LINE_START = 0;
const AFTER_F = 1;
const CORNERS = 2;
const REST_OF_LINE = 3;

export class ObjTriangleCounter {
  /** The triangles of the faces whose line has ended so far. */
  triangles = 0;
  private state = LINE_START;
  private corners = 0;
  private inCorner = false;

  /** Counts the faces in the file's next chunk. */
  push(chunk: Buffer): void {
    let { state, corners, inCorner, triangles } = this;
    const length = chunk.length;
    let at = 0;
    while (at < length) {
      if (state === REST_OF_LINE) {
        const newline = chunk.indexOf(NEWLINE, at);
        if (newline < 0) break;
        at = newline + 1;
        state = LINE_START;
      } else if (state === CORNERS) {
        // A corner is a run of other bytes (v, v/vt, v//vn, v/vt/vn); blanks part them.
        for (; at < length; at += 1) {
          const byte = chunk[at];
          if (byte === SPACE || byte === TAB) inCorner = false;
          else if (byte === NEWLINE || byte === CR || byte === HASH) break;
          else if (!inCorner) {
            inCorner = true;
            corners += 1;
          }
        }
        if (at < length) {
          if (corners > 2) triangles += corners - 2;
          state = REST_OF_LINE;
        }
      } else {
        const byte = chunk[at];
        if (state === LINE_START && (byte === SPACE || byte === TAB || byte === NEWLINE)) at += 1;
        else if (state === LINE_START && byte === LOWER_F) {
          state = AFTER_F;
          at += 1;
        } else if (state === AFTER_F && (byte === SPACE || byte === TAB)) {
          state = CORNERS;
          corners = 0;
          inCorner = false;
        } else state = REST_OF_LINE; // another statement (the byte is looked at again: it may end the line)
      }
    }
    this.state = state;
    this.corners = corners;
    this.inCorner = inCorner;
    this.triangles = triangles;
  }

  /** The triangles of the whole file, once its last chunk is pushed (a last face without a newline counts). */
  end(): number {
    if (this.state === CORNERS && this.corners > 2) this.triangles += this.corners - 2;
    this.state = LINE_START;
    return this.triangles;
  }
}
