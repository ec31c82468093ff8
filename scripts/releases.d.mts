/** Types of scripts/releases.mjs, for the upgrade test. */
export interface Release {
  tag: string;
  commit: string;
}
export declare const EARLIER_RELEASES: Release[];
export declare const TESTED_RELEASES: Release[];
export declare function releasesDir(): string;
export declare function prepareRelease(release: Release): Promise<string>;
