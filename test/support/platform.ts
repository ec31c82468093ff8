import { afterAll, beforeAll } from 'vitest';
import { createOrg, type OrgFixture } from './fixtures.js';
import { startPlatform, type TestPlatform } from './start-platform.js';

export * from './start-platform.js';

/**
 * A platform with one organization for a describe block: started before its tests, closed
 * after them. `receive` takes them (and may prepare more), as in
 * `withPlatformAndOrg((started) => ({ t, org } = started))`.
 */
export function withPlatformAndOrg(receive: (started: { t: TestPlatform; org: OrgFixture }) => unknown): void {
  let started: TestPlatform | undefined;
  beforeAll(async () => {
    started = await startPlatform();
    await receive({ t: started, org: await createOrg(started) });
  });
  afterAll(() => started?.close());
}
