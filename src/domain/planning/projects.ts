import { NAME_MAX_LENGTH } from '../nodes/hierarchy.js';

const PROJECT_SUFFIX = ' plan';

/** A project's default name: the bundle's name and " plan", the name cut (by code points) so the whole stays a node name. */
export function projectName(bundleName: string): string {
  const chars = [...bundleName];
  const room = NAME_MAX_LENGTH - PROJECT_SUFFIX.length;
  return `${chars.length > room ? chars.slice(0, room).join('') : bundleName}${PROJECT_SUFFIX}`;
}
