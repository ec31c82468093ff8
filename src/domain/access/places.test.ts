import { describe, expect, it } from 'vitest';
import { childrenTowards, type HeldRole, highestPlaces } from './places.js';

const role = (path: string, roleName: string, direct = true): HeldRole => ({
  nodeId: path.split('/').filter(Boolean).at(-1) as string,
  path,
  roleId: `id-${roleName}`,
  roleName,
  direct,
});

describe('highestPlaces', () => {
  it('keeps a division and leaves out the sites below it, whatever the order', () => {
    const site = role('/org/div/site/', 'Manager');
    const division = role('/org/div/', 'Viewer');
    expect(highestPlaces([site, division])).toEqual([division]);
    expect(highestPlaces([division, site])).toEqual([division]);
  });

  it('keeps places on separate branches, and only the organization when a role is held on it', () => {
    const a = role('/org/a/', 'Viewer');
    const b = role('/org/b/x/', 'Viewer', false);
    expect(highestPlaces([a, b])).toEqual([a, b]);
    const organization = role('/org/', 'Organization Administrator');
    expect(highestPlaces([a, b, organization])).toEqual([organization]);
  });

  it('a deeper node is left out only below a held one, not beside it', () => {
    const a = role('/org/a/', 'Viewer');
    const nested = role('/org/ab/site/', 'Viewer');
    expect(highestPlaces([a, nested])).toEqual([a, nested]);
  });

  it('lists a node once: the role held directly before one through a group, then by name', () => {
    const viaGroup = role('/org/a/', 'Contributor', false);
    const direct = role('/org/a/', 'Viewer');
    expect(highestPlaces([viaGroup, direct])).toEqual([direct]);
    const other = role('/org/a/', 'Manager', false);
    expect(highestPlaces([viaGroup, other])).toEqual([viaGroup]);
    expect(highestPlaces([])).toEqual([]);
  });
});

describe('childrenTowards', () => {
  const places = ['/org/a/b/', '/org/c/', '/org/a/d/site/'];

  it('answers the child of the node on the way to each place below it', () => {
    expect(childrenTowards('org', places)).toEqual(new Set(['a', 'c']));
    expect(childrenTowards('a', places)).toEqual(new Set(['b', 'd']));
    expect(childrenTowards('d', places)).toEqual(new Set(['site']));
  });

  it('is empty at a place itself, below one, and off the way', () => {
    expect(childrenTowards('c', places).size).toBe(0);
    expect(childrenTowards('site', places).size).toBe(0);
    expect(childrenTowards('elsewhere', places).size).toBe(0);
  });
});
