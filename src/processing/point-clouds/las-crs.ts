import { type FileHandle, open } from 'node:fs/promises';
import { crsOfGeoKeys, crsOfWkt, type DeclaredCrs } from '../../domain/georeferencing/declared-crs.js';
import type { LasHeader } from './las-header.js';

/**
 * The coordinate system a LAS or LAZ file declares, from its "LASF_Projection" records (VLRs
 * before the points, or LAS 1.4's extended records after them): the OGC WKT (record 2112),
 * which global encoding bit 4 says is the one in use, or the GeoTIFF key directory (34735).
 * A file that declares none, or whose records cannot be read, declares nothing: the cloud is
 * then tiled in its own frame, never refused for it.
 */
const PROJECTION_USER_ID = 'LASF_Projection';
const WKT_RECORD = 2112;
const GEO_KEYS_RECORD = 34735;
const WKT_BIT = 1 << 4;
const VLR_HEADER = 54;
const EVLR_HEADER = 60;
/** More than any coordinate system needs; a larger record is not read. */
const MAX_RECORD = 1024 * 1024;

interface ProjectionRecords {
  wkt?: string;
  geoKeys?: Uint16Array;
}

export async function readLasCrs(path: string, header: LasHeader): Promise<DeclaredCrs | undefined> {
  const records: ProjectionRecords = {};
  const file = await open(path, 'r');
  try {
    await readRecords(file, records, header.headerSize, header.vlrCount, VLR_HEADER, header.pointDataOffset);
    if (header.evlrCount > 0 && header.evlrOffset > 0) {
      const { size } = await file.stat();
      await readRecords(file, records, header.evlrOffset, header.evlrCount, EVLR_HEADER, size);
    }
  } finally {
    await file.close();
  }
  const fromWkt = records.wkt === undefined ? undefined : crsOfWkt(records.wkt, 'lasWkt');
  const fromKeys = records.geoKeys && crsOfGeoKeys(records.geoKeys);
  // The WKT when the header says it is the one, or when it is all there is; a readable one before a broken one.
  const order = header.globalEncoding & WKT_BIT ? [fromWkt, fromKeys] : [fromKeys, fromWkt];
  const declared = order.filter((crs): crs is DeclaredCrs => crs !== undefined);
  return declared.find((crs) => !crs.problem) ?? declared[0];
}

/** Walks `count` records from `at`, keeping the projection records; stops where the records stop making sense. */
async function readRecords(
  file: FileHandle,
  records: ProjectionRecords,
  at: number,
  count: number,
  headerBytes: number,
  end: number,
): Promise<void> {
  for (let i = 0; i < count && at + headerBytes <= end; i += 1) {
    const head = await readAt(file, at, headerBytes);
    if (!head) return;
    const userId = head.toString('latin1', 2, 18).replace(/\0.*$/s, '');
    const recordId = head.readUInt16LE(18);
    const length = headerBytes === EVLR_HEADER ? Number(head.readBigUInt64LE(20)) : head.readUInt16LE(20);
    const payloadAt = at + headerBytes;
    if (payloadAt + length > end) return;
    if (userId === PROJECTION_USER_ID && length <= MAX_RECORD) {
      if (recordId === WKT_RECORD) {
        const bytes = await readAt(file, payloadAt, length);
        if (bytes) records.wkt = bytes.toString('utf8').replace(/\0[\s\S]*$/, '');
      } else if (recordId === GEO_KEYS_RECORD) {
        const bytes = await readAt(file, payloadAt, length - (length % 2));
        if (bytes) records.geoKeys = Uint16Array.from({ length: bytes.length / 2 }, (_, k) => bytes.readUInt16LE(k * 2));
      }
    }
    at = payloadAt + length;
  }
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer | undefined> {
  const bytes = Buffer.alloc(length);
  const { bytesRead } = await file.read(bytes, 0, length, position);
  return bytesRead === length ? bytes : undefined;
}
