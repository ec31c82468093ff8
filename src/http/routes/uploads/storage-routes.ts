import { Type } from '@sinclair/typebox';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';

/** What the organization stores against its quota: the console shows it before and after an upload. */
export default async function storageRoutes(app: RegionApp) {
  app.get(
    '/v1/storage',
    {
      config: { scope: 'read:hierarchy' },
      schema: {
        tags: ['Storage'],
        operationId: 'getStorageUse',
        summary: "The organization's storage use and quota",
        description:
          'The bytes the quota checks count: active nodes, the reservations of uploads in progress and the asset library (trashed bytes count again on restore). quotaBytes is null when the organization has no quota.',
        response: {
          200: Type.Object({
            usedBytes: Type.Integer({ description: 'Bytes counted against the quota, reservations included' }),
            reservedBytes: Type.Integer({ description: 'Bytes reserved by uploads in progress' }),
            quotaBytes: Type.Union([Type.Integer(), Type.Null()], { description: 'The quota; null: none' }),
          }),
          ...errors(401, 403),
        },
      },
    },
    async (request) => app.services.uploads.storageUse(request.principal),
  );
}
