/**
 * division > site > folder with 20 child folders, made through the API as a client would: the
 * same tree on SQLite and PostgreSQL. Returns the folder, the node the browse benchmarks read.
 */
export async function browseFolder(origin: string, orgId: string, token: string): Promise<string> {
  const create = async (parentId: string, kind: string, body: object) => {
    const response = await fetch(`${origin}/eu/reality/v1/nodes/${parentId}/${kind}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const created = (await response.json()) as { id?: string };
    if (!created.id) throw new Error(`creating a ${kind} failed: ${JSON.stringify(created)}`);
    return created.id;
  };
  const division = await create(orgId, 'division', { name: 'Infrastructure' });
  const site = await create(division, 'site', { name: 'Central Station', address: '1 Station Avenue' });
  const folder = await create(site, 'folder', { name: 'Survey 2024' });
  for (let i = 0; i < 20; i += 1) await create(folder, 'folder', { name: `Scan ${i + 1}` });
  return folder;
}
