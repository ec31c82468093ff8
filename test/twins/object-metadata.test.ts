import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createOrg, type OrgFixture } from '../support/fixtures.js';
import { type TestPlatform, withPlatformAndOrg } from '../support/platform.js';
import { refuser } from '../support/refusals.js';
import { auditOf, createSite, openDraft, twinSnapshot } from '../support/twins.js';
import { uploadBytes } from '../support/uploads.js';

const identity = { x: 0, y: 0, z: 0, w: 1 };
const volume = { boxes: [{ center: { x: 0, y: 0, z: 0 }, size: { x: 1, y: 1, z: 1 }, rotation: identity }] };
const ATTACHMENT = 'urn:primitive:obj:attachment';
const LINK = 'urn:primitive:obj:external-link';
const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' };

const properties = [
  { section: 'General', name: 'Weight', type: 'number', unit: 'kg', required: false },
  { section: 'General', name: 'Label', type: 'shortText', required: false },
  { section: 'General', name: 'Notes', type: 'longText', required: false },
  { section: 'General', name: 'Active', type: 'boolean', required: false },
  { section: 'General', name: 'Grade', type: 'choice', choices: ['A', 'B'], required: false },
  { section: 'Files', name: 'Manual', type: 'attachment', required: false },
  { section: 'Files', name: 'Docs', type: 'link', required: false },
  ...Array.from({ length: 9 }, (_, i) => ({ section: 'Long', name: `Text ${i}`, type: 'longText', required: false })),
];

type Kind = 'asset' | 'pointOfInterest' | 'zone';
const ROUTES: Record<Kind, string> = { asset: 'assets', pointOfInterest: 'points-of-interest', zone: 'zones' };
const BODIES: Record<Kind, object> = {
  asset: { name: 'Tank', volume },
  pointOfInterest: { name: 'Valve', position: { x: 1, y: 2, z: 3 } },
  zone: { name: 'Hall', volume },
};
const AUDIT_NAMES: Record<Kind, string> = { asset: 'asset', pointOfInterest: 'point-of-interest', zone: 'zone' };

describe('object metadata: /v1/twin/{ctx}/object/{objectId}/metadata', () => {
  let t: TestPlatform;
  let org: OrgFixture;
  let siteId: string;
  let typeId: string;
  let otherTypeId: string;
  withPlatformAndOrg((started) => ({ t, org } = started));

  const refused = refuser(() => twinSnapshot(t, org));
  const metadataPath = (ctx: string, id: string) => `/v1/twin/${ctx}/object/${id}/metadata`;
  const patch = (ctx: string, id: string, sections: unknown, client = org.admin) =>
    client.patch(metadataPath(ctx, id), { sections });

  async function newType(props: object[] = properties, owner: OrgFixture = org) {
    const appliesTo = ['asset', 'pointOfInterest', 'zone'];
    const response = await owner.admin.post('/v1/metadata-types', { name: `T ${randomUUID()}`, appliesTo, properties: props });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.id as string;
  }

  async function create(ctx: string, kind: Kind = 'asset', metadataTypeId: string | null = typeId, owner = org) {
    const response = await owner.admin.post(`/v1/twin/${ctx}/${ROUTES[kind]}`, { ...BODIES[kind], metadataTypeId });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body;
  }

  async function ok(response: { status: number; body: any }) {
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  }

  /** A finalized attachment (or only initiated, with finalize false) on the context's site. */
  async function attachment(ctx: string, finalize = true, owner = org) {
    const bytes = Buffer.from('%PDF-1.7\n% manual\n');
    const initiated = await owner.admin.post(`/v1/twin/${ctx}/object/attachments`, {
      objectId: 'any',
      name: `${randomUUID()}.pdf`,
      size: bytes.length,
    });
    expect(initiated.status, JSON.stringify(initiated.body)).toBe(201);
    if (!finalize) return initiated.body;
    const { etag } = await uploadBytes(initiated.body, bytes);
    return ok(await owner.admin.post(`/v1/twin/${ctx}/object/attachments/${initiated.body.id}/finalize`, { etag }));
  }

  beforeAll(async () => {
    siteId = await createSite(org);
    typeId = await newType();
    otherTypeId = await newType([{ section: 'General', name: 'Weight', type: 'number', required: true }]);
  });

  for (const kind of ['asset', 'pointOfInterest', 'zone'] as const) {
    it(`reads and merges the metadata of a ${kind}; includeMetadata answers it; ${AUDIT_NAMES[kind]}.metadata-updated`, async () => {
      const object = await create(siteId, kind);
      const read = await ok(await org.admin.get(metadataPath(siteId, object.id)));
      expect(read).toEqual({
        objectId: object.id,
        objectType: kind,
        metadataTypeId: typeId,
        sections: {},
        updatedAt: object.updatedAt,
      });

      const editor = await org.serviceClient({ roleName: 'Contributor' });
      t.clock.advance(1000);
      const values = {
        General: { Weight: 12.5, Label: '', Notes: 'n'.repeat(10_000), Active: false, Grade: 'B' },
        Files: { Docs: { _p3d_type: LINK, url: 'https://example.com/pump', text: '' } },
      };
      const patched = await ok(await patch(siteId, object.id, values, editor.client));
      expect(patched).toEqual({ ...read, sections: values, updatedAt: expect.any(String) });
      expect(patched.updatedAt > object.updatedAt).toBe(true);
      expect(await ok(await org.admin.get(metadataPath(siteId, object.id)))).toEqual(patched);
      const one = `/v1/twin/${siteId}/${ROUTES[kind]}/${object.id}`;
      expect(await ok(await org.admin.get(one))).toEqual({ ...object, updatedBy: editor.userId, updatedAt: patched.updatedAt });
      for (const query of ['includeMetadata=true', 'includeMetaData=true']) {
        expect((await ok(await org.admin.get(`${one}?${query}`))).metadata).toEqual(values);
        const listed = await ok(await org.admin.get(`/v1/twin/${siteId}/${ROUTES[kind]}?limit=500&${query}`));
        expect(listed.find((item: { id: string }) => item.id === object.id).metadata).toEqual(values);
      }
      if (kind === 'zone') {
        const tree = await ok(await org.admin.get(`/v1/twin/${siteId}/zones?tree=true&includeMetadata=true&limit=500`));
        expect(tree.items.find((item: { id: string }) => item.id === object.id).metadata).toEqual(values);
      }
      expect(await ok(await org.admin.get(one))).not.toHaveProperty('metadata');

      // A merge: properties set and removed (null), a section removed whole; sent as merge-patch+json.
      const merged = await ok(
        await org.admin.request(
          'PATCH',
          metadataPath(siteId, object.id),
          JSON.stringify({ sections: { General: { Weight: 3, Label: null, Grade: null }, Files: null } }),
          MERGE_PATCH,
        ),
      );
      expect(merged.sections).toEqual({ General: { Weight: 3, Notes: values.General.Notes, Active: false } });
      // Removing every property of a section drops the section.
      const emptied = await ok(await patch(siteId, object.id, { General: { Weight: null, Notes: null, Active: null } }));
      expect(emptied.sections).toEqual({});

      const events = (await auditOf(t, org, object.id)).filter((event) => event.action.endsWith('metadata-updated'));
      expect(events).toHaveLength(3);
      expect(events[0]).toMatchObject({
        action: `${AUDIT_NAMES[kind]}.metadata-updated`,
        target_type: AUDIT_NAMES[kind],
        actor_id: editor.userId,
        details: { siteId, draftId: null, metadataTypeId: typeId, sections: ['General', 'Files'] },
      });
    });
  }

  it('refuses values that do not fit the type, and bad bodies, with 400 naming the field; nothing stored', async () => {
    const object = await create(siteId);
    await ok(await patch(siteId, object.id, { General: { Weight: 1 } }));
    const bad: [unknown, RegExp][] = [
      [{ General: { Nope: 1 } }, /body\.sections\.General\.Nope: is not a property of the metadata type/],
      [{ Elsewhere: { Weight: 1 } }, /body\.sections\.Elsewhere\.Weight: is not a property/],
      [{ General: { Weight: '1' } }, /body\.sections\.General\.Weight: must be a finite number/],
      [{ General: { Label: 'x'.repeat(256) } }, /body\.sections\.General\.Label/],
      [{ General: { Notes: 'x'.repeat(10_001) } }, /body\.sections\.General\.Notes/],
      [{ General: { Active: 'true' } }, /body\.sections\.General\.Active: must be true or false/],
      [{ General: { Grade: 'a' } }, /body\.sections\.General\.Grade: must be one of the choices/],
      [{ General: { Weight: { value: 1 } } }, /body\.sections\.General\.Weight/],
      [{ General: { Weight: [1] } }, /body\.sections\.General\.Weight/],
      [{ General: 5 }, /body\.sections\.General: must be an object of properties, or null/],
      [{ General: [] }, /body\.sections\.General/],
      [{ Files: { Manual: { _p3d_type: ATTACHMENT, id: 'x' } } }, /body\.sections\.Files\.Manual/],
      [{ Files: { Manual: { _p3d_type: LINK, url: 'https://x.org', text: '' } } }, /body\.sections\.Files\.Manual/],
      [{ Files: { Docs: { _p3d_type: LINK, url: 'ftp://x.org', text: '' } } }, /body\.sections\.Files\.Docs/],
      [{ Files: { Docs: { _p3d_type: LINK, url: 'https://x.org', text: '', more: 1 } } }, /body\.sections\.Files\.Docs/],
      [{ Files: { Docs: 'https://x.org' } }, /body\.sections\.Files\.Docs/],
      [Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`S${i}`, { p: 1 }])), /body\.sections: at most 50 sections/],
      [{ General: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`p${i}`, 1])) }, /at most 200 properties/],
      // Nine long texts of 10,000 three-byte characters: 270 kB, above 256 KiB as JSON.
      [
        { Long: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`Text ${i}`, '€'.repeat(10_000)])) },
        /body\.sections: must be at most 256 KiB as JSON/,
      ],
    ];
    for (const [sections, message] of bad)
      await refused(() => patch(siteId, object.id, sections), 400, 'ValidationError', message);
    // Every failure is named, not only the first.
    const both = await refused(
      () => patch(siteId, object.id, { General: { Nope: 1, Grade: 'C' } }),
      400,
      'ValidationError',
      /body\.sections\.General\.Nope/,
    );
    expect(both.body.message).toMatch(/body\.sections\.General\.Grade/);
    for (const [body, message] of [
      [{}, /body: must have required property 'sections'/],
      [{ sections: {}, extra: 1 }, /body: unknown property "extra"/],
      [{ sections: 'General' }, /body\.sections/],
      [{ sections: null }, /body\.sections/],
      [{ objectId: object.id, sections: {} }, /body: unknown property "objectId"/],
    ] as [unknown, RegExp][]) {
      await refused(() => org.admin.patch(metadataPath(siteId, object.id), body), 400, 'ValidationError', message);
    }
    const path = metadataPath(siteId, object.id);
    await refused(() => org.admin.request('PATCH', path, '{"sections":', MERGE_PATCH), 400, 'BadRequest');
    await refused(
      () => org.admin.request('PATCH', path, '{"sections":{"General":{"Label":"a\\u0000"}}}', MERGE_PATCH),
      400,
      'ValidationError',
      /NUL/,
    );
    await refused(
      () => org.admin.request('PATCH', path, JSON.stringify({ sections: {} }), { 'content-type': 'application/xml' }),
      415,
      'Unsupported Media Type',
    );
    // Larger than a metadata PATCH takes at all.
    const huge = { sections: { General: { Notes: 'x'.repeat(600 * 1024) } } };
    await refused(() => org.admin.patch(path, huge), 413, 'Payload Too Large');
    // merge-patch+json is the metadata routes' own: the object's PATCH does not take it.
    await refused(
      () => org.admin.request('PATCH', `/v1/twin/${siteId}/assets/${object.id}`, JSON.stringify({ name: 'X' }), MERGE_PATCH),
      415,
      'Unsupported Media Type',
    );
    expect((await ok(await org.admin.get(path))).sections).toEqual({ General: { Weight: 1 } });
  });

  it('loses no property when patches of one object arrive at once, live or through a draft', async () => {
    const draft = await openDraft(org, siteId);
    for (const ctx of [siteId, draft.id]) {
      const object = await create(siteId);
      const each = [{ Weight: 1 }, { Label: 'l' }, { Notes: 'n' }, { Active: true }, { Grade: 'A' }];
      const answers = await Promise.all(each.map((values) => patch(ctx, object.id, { General: values })));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      const read = await ok(await org.admin.get(metadataPath(ctx, object.id)));
      expect(read.sections).toEqual({ General: Object.assign({}, ...each) });
    }
  });

  it('checks required properties after the merge; an empty patch checks the stored sections', async () => {
    const object = await create(siteId, 'zone', otherTypeId);
    await refused(() => patch(siteId, object.id, {}), 400, 'ValidationError', /body\.sections\.General\.Weight: is required/);
    await refused(
      () => patch(siteId, object.id, { General: { Weight: null } }),
      400,
      'ValidationError',
      /body\.sections\.General\.Weight: is required/,
    );
    expect((await ok(await patch(siteId, object.id, { General: { Weight: 0 } }))).sections).toEqual({ General: { Weight: 0 } });
    await refused(() => patch(siteId, object.id, { General: null }), 400, 'ValidationError', /General\.Weight: is required/);
  });

  describe('free metadata: an object without a metadata type', () => {
    const free = {
      Inspection: {
        Inspector: 'Ana',
        Pressure: 4.5,
        Passed: true,
        Report: { _p3d_type: LINK, url: 'https://x.org/r', text: 'Report' },
      },
      'Not in any type': { Note: '', Count: -3 },
    };

    for (const kind of ['asset', 'pointOfInterest', 'zone'] as const) {
      it(`takes free sections on a ${kind}, live and through a draft, merged as typed ones`, async () => {
        const site = await createSite(org);
        const draft = await openDraft(org, site);
        for (const ctx of [site, draft.id]) {
          const object = await create(ctx, kind, null);
          const manual = await attachment(site);
          const file = { _p3d_type: ATTACHMENT, id: manual.id, name: 'manual.pdf' };
          const patched = await ok(await patch(ctx, object.id, { ...free, Files: { Manual: file } }));
          expect(patched).toEqual({
            objectId: object.id,
            objectType: kind,
            metadataTypeId: null,
            sections: { ...free, Files: { Manual: file } },
            updatedAt: expect.any(String),
          });
          const merged = await ok(await patch(ctx, object.id, { Inspection: { Passed: null, Pressure: 5 }, Files: null }));
          expect(merged.sections).toEqual({
            Inspection: { Inspector: 'Ana', Pressure: 5, Report: free.Inspection.Report },
            'Not in any type': free['Not in any type'],
          });
          expect(await ok(await org.admin.get(metadataPath(ctx, object.id)))).toEqual(merged);
          const [event] = (await auditOf(t, org, object.id)).slice(-1);
          expect(event).toMatchObject({
            action: `${AUDIT_NAMES[kind]}.metadata-updated`,
            details: { metadataTypeId: null, sections: ['Inspection', 'Files'], draftId: ctx === site ? null : ctx },
          });
        }
        // The draft's free sections stay the draft's until the publish.
        expect((await ok(await org.admin.get(`/v1/twin/${site}/${ROUTES[kind]}?includeMetadata=true`))).length).toBe(1);
      });
    }

    it('refuses other shapes, bad names, bad links and attachments, and the bounds, with 400 naming the property; nothing stored', async () => {
      const object = await create(siteId, 'asset', null);
      await ok(await patch(siteId, object.id, { Kept: { One: 1 } }));
      const pending = await attachment(siteId, false);
      const elsewhere = await attachment(await createSite(org));
      const bad: [unknown, RegExp][] = [
        [{ S: { List: [1, 2] } }, /body\.sections\.S\.List: must be a string, a number, a boolean, a link .* or an attachment/],
        [{ S: { Nested: { a: 1 } } }, /body\.sections\.S\.Nested: must be a string/],
        [{ S: { Empty: {} } }, /body\.sections\.S\.Empty/],
        [{ S: { Long: 'x'.repeat(10_001) } }, /body\.sections\.S\.Long: must be a string of at most 10000 characters/],
        [{ S: { '': 1 } }, /body\.sections\.S\.: a property name is 1 to 255 characters/],
        [{ ['s'.repeat(256)]: { P: 1 } }, /a section name is 1 to 255 characters/],
        [{ S: { Link: { _p3d_type: LINK, url: 'ftp://x.org', text: '' } } }, /body\.sections\.S\.Link/],
        [{ S: { Link: { _p3d_type: LINK, url: 'https://x.org', text: '', more: 1 } } }, /body\.sections\.S\.Link/],
        [{ S: { File: { _p3d_type: ATTACHMENT, id: 'x' } } }, /body\.sections\.S\.File/],
        [
          { S: { File: { _p3d_type: ATTACHMENT, id: randomUUID(), name: 'a' } } },
          /body\.sections\.S\.File: no attachment .* in this context/,
        ],
        [
          { S: { File: { _p3d_type: ATTACHMENT, id: pending.id, name: 'a' } } },
          /body\.sections\.S\.File: attachment .* is not finalized/,
        ],
        [{ S: { File: { _p3d_type: ATTACHMENT, id: elsewhere.id, name: 'a' } } }, /body\.sections\.S\.File: no attachment/],
        [{ S: 5 }, /body\.sections\.S: must be an object of properties, or null/],
        [Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`S${i}`, { p: 1 }])), /body\.sections: at most 50 sections/],
        [{ S: Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`p${i}`, 1])) }, /at most 200 properties/],
        [
          { S: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`t${i}`, '€'.repeat(10_000)])) },
          /body\.sections: must be at most 256 KiB as JSON/,
        ],
      ];
      for (const [sections, message] of bad)
        await refused(() => patch(siteId, object.id, sections), 400, 'ValidationError', message);
      // Every failure is named, and a refusal through a draft stores nothing either.
      const both = await refused(
        () => patch(siteId, object.id, { S: { A: [1], B: null, C: { x: 1 } } }),
        400,
        'ValidationError',
        /S\.A/,
      );
      expect(both.body.message).toMatch(/body\.sections\.S\.C/);
      const draft = await openDraft(org, siteId);
      await refused(() => patch(draft.id, object.id, { S: { A: [1] } }), 400, 'ValidationError', /body\.sections\.S\.A/);
      expect((await ok(await org.admin.get(metadataPath(siteId, object.id)))).sections).toEqual({ Kept: { One: 1 } });
    });
  });

  describe('giving an object with free sections a type', () => {
    const fitting = { General: { Weight: 3, Label: 'P-1', Grade: 'A' } };
    const unfitting = { General: { Grade: 'C', Colour: 'red' }, Elsewhere: { Any: true } };

    for (const kind of ['asset', 'pointOfInterest', 'zone'] as const) {
      it(`keeps what fits on a ${kind}, refuses what does not naming each (nothing changed), drops it with dropUnfitting`, async () => {
        for (const ctx of [siteId, (await openDraft(org, siteId)).id]) {
          const one = `/v1/twin/${ctx}/${ROUTES[kind]}`;
          // All fits: kept whole.
          const fits = await create(ctx, kind, null);
          await ok(await patch(ctx, fits.id, fitting));
          expect((await ok(await org.admin.patch(`${one}/${fits.id}`, { metadataTypeId: typeId }))).metadataTypeId).toBe(typeId);
          expect(await ok(await org.admin.get(metadataPath(ctx, fits.id)))).toMatchObject({
            metadataTypeId: typeId,
            sections: fitting,
          });

          const mixed = await create(ctx, kind, null);
          await ok(
            await patch(ctx, mixed.id, { General: { ...fitting.General, ...unfitting.General }, Elsewhere: unfitting.Elsewhere }),
          );
          const answer = await refused(
            () => org.admin.patch(`${one}/${mixed.id}`, { metadataTypeId: typeId, name: 'Renamed' }),
            400,
            'ValidationError',
            /body\.metadataTypeId: 3 of the object's metadata properties do not fit/,
          );
          for (const named of [
            /sections\.General\.Grade: must be one of the choices/,
            /sections\.General\.Colour: is not a property/,
            /sections\.Elsewhere\.Any/,
          ]) {
            expect(answer.body.message).toMatch(named);
          }
          expect(answer.body.message).not.toMatch(/Weight|Label/);
          await refused(
            () => org.admin.patch(`${one}/${mixed.id}`, { metadataTypeId: typeId, dropUnfitting: false }),
            400,
            'ValidationError',
            /dropUnfitting/,
          );

          const dropped = await ok(await org.admin.patch(`${one}/${mixed.id}`, { metadataTypeId: typeId, dropUnfitting: true }));
          expect(dropped.metadataTypeId).toBe(typeId);
          expect(await ok(await org.admin.get(metadataPath(ctx, mixed.id)))).toMatchObject({
            metadataTypeId: typeId,
            sections: { General: { Weight: 3, Label: 'P-1' } },
          });
          const [event] = (await auditOf(t, org, mixed.id)).slice(-1);
          expect(event).toMatchObject({
            action: `${AUDIT_NAMES[kind]}.updated`,
            details: {
              changed: ['metadataTypeId'],
              metadataDropped: ['sections.General.Grade', 'sections.General.Colour', 'sections.Elsewhere.Any'],
            },
          });
          expect(event?.details).not.toHaveProperty('dropUnfitting');
          // From now on the type's rules apply.
          await refused(() => patch(ctx, mixed.id, { General: { Colour: 'red' } }), 400, 'ValidationError', /is not a property/);
        }
      });
    }

    it('does not ask for the required properties the free sections lack (the next metadata PATCH does); a type of another kind is 400', async () => {
      const object = await create(siteId, 'asset', null);
      await ok(await patch(siteId, object.id, { Elsewhere: { Any: 1 } }));
      await ok(
        await org.admin.patch(`/v1/twin/${siteId}/assets/${object.id}`, { metadataTypeId: otherTypeId, dropUnfitting: true }),
      );
      expect((await ok(await org.admin.get(metadataPath(siteId, object.id)))).sections).toEqual({});
      await refused(() => patch(siteId, object.id, {}), 400, 'ValidationError', /General\.Weight: is required/);

      const zonesOnly = await org.admin.post('/v1/metadata-types', {
        name: `Z ${randomUUID()}`,
        appliesTo: ['zone'],
        properties: [],
      });
      expect(zonesOnly.status).toBe(201);
      const untyped = await create(siteId, 'asset', null);
      await ok(await patch(siteId, untyped.id, { Elsewhere: { Any: 1 } }));
      for (const body of [
        { metadataTypeId: zonesOnly.body.id, dropUnfitting: true },
        { metadataTypeId: randomUUID() },
        { dropUnfitting: 'yes' },
      ]) {
        await refused(
          () => org.admin.patch(`/v1/twin/${siteId}/assets/${untyped.id}`, body),
          400,
          'ValidationError',
          /body\.(metadataTypeId|dropUnfitting)/,
        );
      }
      expect((await ok(await org.admin.get(metadataPath(siteId, untyped.id)))).sections).toEqual({ Elsewhere: { Any: 1 } });
    });
  });

  it('clears the values when the object PATCH changes its metadata type (or removes it); the same type keeps them', async () => {
    for (const ctx of [siteId, (await openDraft(org, siteId)).id]) {
      const object = await create(siteId);
      const values = { General: { Weight: 7 } };
      await ok(await patch(ctx, object.id, values));
      const same = await ok(
        await org.admin.patch(`/v1/twin/${ctx}/assets/${object.id}`, { metadataTypeId: typeId, name: 'Same' }),
      );
      expect(same.metadataTypeId).toBe(typeId);
      expect((await ok(await org.admin.get(metadataPath(ctx, object.id)))).sections).toEqual(values);
      await ok(await org.admin.patch(`/v1/twin/${ctx}/assets/${object.id}`, { metadataTypeId: otherTypeId }));
      expect(await ok(await org.admin.get(metadataPath(ctx, object.id)))).toMatchObject({
        metadataTypeId: otherTypeId,
        sections: {},
      });
      const [, , event] = (await auditOf(t, org, object.id)).slice(-3);
      expect(event).toMatchObject({ action: 'asset.updated', details: { changed: ['metadataTypeId'], metadataCleared: true } });
      // The new type's rules apply from now on (its Weight is required).
      await refused(() => patch(ctx, object.id, {}), 400, 'ValidationError', /General\.Weight: is required/);
      await ok(await patch(ctx, object.id, { General: { Weight: 8 } }));
      await ok(await org.admin.patch(`/v1/twin/${ctx}/assets/${object.id}`, { metadataTypeId: null }));
      expect(await ok(await org.admin.get(`/v1/twin/${ctx}/assets/${object.id}?includeMetadata=true`))).toMatchObject({
        metadataTypeId: null,
        metadata: {},
      });
    }
  });

  it('keeps a draft’s metadata apart from the live twin until it is published', async () => {
    const site = await createSite(org);
    const live = await create(site);
    const liveValues = { General: { Weight: 1, Label: 'live' } };
    await ok(await patch(site, live.id, liveValues));
    const draft = await openDraft(org, site);
    const added = await create(draft.id, 'pointOfInterest');

    t.clock.advance(1000);
    const inDraft = await ok(await patch(draft.id, live.id, { General: { Weight: 2 } }));
    expect(inDraft.sections).toEqual({ General: { Weight: 2, Label: 'live' } });
    await ok(await patch(draft.id, added.id, { General: { Grade: 'A' } }));
    // The live twin sees none of it.
    expect((await ok(await org.admin.get(metadataPath(site, live.id)))).sections).toEqual(liveValues);
    await refused(() => org.admin.get(metadataPath(site, added.id)), 404, 'Not Found');
    const liveList = await ok(await org.admin.get(`/v1/twin/${site}/assets?includeMetadata=true`));
    expect(liveList[0].metadata).toEqual(liveValues);
    const draftList = await ok(await org.admin.get(`/v1/twin/${draft.id}/assets?includeMetadata=true`));
    expect(draftList[0].metadata).toEqual(inDraft.sections);
    expect(await ok(await org.admin.get(metadataPath(draft.id, live.id)))).toEqual(inDraft);
    const changes = (await ok(await org.admin.get(`/v1/twin/${draft.id}/changes`))).items;
    expect(changes.map((c: { objectId: string; kind: string }) => [c.objectId, c.kind])).toEqual([
      [added.id, 'added'],
      [live.id, 'modified'],
    ]);
    // The draft's change holds the whole sections, with the type they were checked against.
    const row = await t.platform.regions[org.region].store.db
      .selectFrom('twin_draft_changes')
      .select('fields')
      .where('draft_id', '=', draft.id)
      .where('object_id', '=', live.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.fields as string)).toMatchObject({ metadata: inDraft.sections, metadataTypeId: typeId });
    const [event] = (await auditOf(t, org, live.id)).slice(-1);
    expect(event).toMatchObject({ action: 'asset.metadata-updated', details: { siteId: site, draftId: draft.id } });

    // Live changes meanwhile: the draft's sections replace the live ones whole at the publish,
    // and they keep the type they were checked against even when the live object changed type.
    await ok(await patch(site, live.id, { General: { Label: 'changed live' } }));
    await ok(await org.admin.patch(`/v1/twin/${site}/assets/${live.id}`, { metadataTypeId: otherTypeId }));
    expect((await ok(await org.admin.get(metadataPath(draft.id, live.id)))).sections).toEqual(inDraft.sections);

    const published = await org.admin.post(`/v1/twin/${draft.id}/publish`, {});
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect(await ok(await org.admin.get(metadataPath(site, live.id)))).toMatchObject({
      metadataTypeId: typeId,
      sections: inDraft.sections,
    });
    expect(await ok(await org.admin.get(metadataPath(site, added.id)))).toMatchObject({
      objectType: 'pointOfInterest',
      sections: { General: { Grade: 'A' } },
    });
    // A published draft takes no writes; it still reads.
    await refused(() => patch(draft.id, live.id, { General: { Weight: 3 } }), 409, 'DraftNotOpen');
    await refused(() => patch(draft.id, live.id, { General: { Nope: 3 } }), 409, 'DraftNotOpen');
    expect((await org.admin.get(metadataPath(draft.id, live.id))).status).toBe(200);
  });

  it('answers 404 for an object the context does not show: missing, deleted, removed in the draft, another site or organization', async () => {
    const mine = await create(siteId);
    const otherSite = await createSite(org);
    const gone = await create(siteId, 'zone');
    expect((await org.admin.delete(`/v1/twin/${siteId}/zones/${gone.id}`)).status).toBe(204);
    const draft = await openDraft(org, siteId);
    const removed = await create(siteId, 'pointOfInterest');
    expect((await org.admin.delete(`/v1/twin/${draft.id}/points-of-interest/${removed.id}`)).status).toBe(204);
    const other = await createOrg(t);
    const foreignSite = await createSite(other);
    const foreignType = await newType(properties, other);
    const foreign = await create(foreignSite, 'asset', foreignType, other);
    const cases: [string, string][] = [
      [siteId, randomUUID()],
      [siteId, gone.id],
      [draft.id, gone.id],
      [draft.id, removed.id],
      [otherSite, mine.id],
      [siteId, foreign.id],
      [foreignSite, foreign.id],
      [foreignSite, mine.id],
      [randomUUID(), mine.id],
    ];
    for (const [ctx, id] of cases) {
      await refused(() => org.admin.get(metadataPath(ctx, id)), 404, 'Not Found');
      await refused(() => patch(ctx, id, { General: { Weight: 1 } }), 404, 'Not Found');
      await refused(() => patch(ctx, id, { General: { Nope: 1 } }), 404, 'Not Found');
    }
    // Still readable through its own organization, unchanged.
    expect((await ok(await other.admin.get(metadataPath(foreignSite, foreign.id)))).sections).toEqual({});
    await refused(
      () => org.admin.get(`/v1/twin/${siteId}/object/${'x'.repeat(65)}/metadata`),
      400,
      'ValidationError',
      /params\.objectId/,
    );
  });

  it('needs read:hierarchy and read to read, write:hierarchy and edit to change', async () => {
    const object = await create(siteId);
    const draft = await openDraft(org, siteId);
    const noRead = await org.serviceClient({ scopes: 'read:basic write:hierarchy', roleName: 'Organization Administrator' });
    const noWrite = await org.serviceClient({ scopes: 'read:hierarchy', roleName: 'Organization Administrator' });
    const viewer = await org.serviceClient({ roleName: 'Viewer', nodeId: siteId });
    const outsider = await org.serviceClient({ roleName: 'Viewer', nodeId: await createSite(org) });
    const sections = { General: { Weight: 5 } };
    for (const ctx of [siteId, draft.id]) {
      const path = metadataPath(ctx, object.id);
      const assetPath = `/v1/twin/${ctx}/assets/${object.id}/metadata`;
      await refused(() => org.admin.withToken(undefined).get(path), 401, 'not_authenticated');
      await refused(() => org.admin.withToken(undefined).patch(path, { sections }), 401, 'not_authenticated');
      await refused(() => org.admin.withToken(undefined).patch(assetPath, { sections }), 401, 'not_authenticated');
      await refused(() => noRead.client.get(path), 403, 'Forbidden', 'Insufficient OAuth scopes');
      await refused(() => noWrite.client.patch(path, { sections }), 403, 'Forbidden', 'Insufficient OAuth scopes');
      await refused(() => noWrite.client.patch(assetPath, { sections }), 403, 'Forbidden', 'Insufficient OAuth scopes');
      expect((await viewer.client.get(path)).status).toBe(200);
      await refused(() => viewer.client.patch(path, { sections }), 403, 'Forbidden', 'Forbidden resource');
      await refused(() => viewer.client.patch(assetPath, { sections }), 403, 'Forbidden', 'Forbidden resource');
      await refused(() => outsider.client.get(path), 403, 'Forbidden');
      await refused(() => outsider.client.patch(path, { sections }), 403, 'Forbidden');
    }
    const editor = await org.serviceClient({ roleName: 'Contributor', nodeId: siteId });
    expect((await ok(await patch(siteId, object.id, sections, editor.client))).sections).toEqual(sections);
  });

  describe('attachments', () => {
    it('takes an attachment finalized on the same site; refuses a missing, unfinished or other site’s one, naming the property', async () => {
      const site = await createSite(org);
      const object = await create(site);
      const manual = await attachment(site);
      expect(manual).toMatchObject({ contextId: site, state: 'ready' });
      const value = (id: string) => ({ Files: { Manual: { _p3d_type: ATTACHMENT, id, name: 'manual.pdf' } } });
      expect((await ok(await patch(site, object.id, value(manual.id)))).sections).toEqual(value(manual.id));

      const pending = await attachment(site, false);
      const elsewhere = await attachment(await createSite(org));
      const other = await createOrg(t);
      const foreign = await attachment(await createSite(other), true, other);
      const cases: [string, RegExp][] = [
        [randomUUID(), /body\.sections\.Files\.Manual: no attachment .* in this context/],
        [pending.id, /body\.sections\.Files\.Manual: attachment .* is not finalized/],
        [elsewhere.id, /body\.sections\.Files\.Manual: no attachment .* in this context/],
        [foreign.id, /body\.sections\.Files\.Manual: no attachment .* in this context/],
      ];
      for (const [id, message] of cases) await refused(() => patch(site, object.id, value(id)), 400, 'ValidationError', message);
      // A value kept from before is not checked again; other properties still change.
      expect((await ok(await patch(site, object.id, { General: { Weight: 1 } }))).sections).toEqual({
        ...value(manual.id),
        General: { Weight: 1 },
      });
    });

    it('takes a draft id as the context of the attachment routes: the attachment is the site’s', async () => {
      const site = await createSite(org);
      const draft = await openDraft(org, site);
      const object = await create(draft.id);
      const uploaded = await attachment(draft.id);
      expect(uploaded).toMatchObject({ contextId: site, state: 'ready' });
      const listed = await ok(await org.admin.get(`/v1/twin/${draft.id}/object/any/attachments`));
      expect(listed.map((a: { id: string }) => a.id)).toContain(uploaded.id);
      expect(
        (await ok(await org.admin.get(`/v1/twin/${site}/object/any/attachments`))).map((a: { id: string }) => a.id),
      ).toContain(uploaded.id);
      const download = await fetch(`${t.regionUrl(org.region)}/v1/twin/${draft.id}/object/attachments/${uploaded.id}/download`, {
        headers: { authorization: `Bearer ${org.admin.token}` },
      });
      expect(download.status).toBe(200);
      expect(await download.text()).toMatch(/^%PDF/);
      // Uploaded through the site, used through its draft: the same context.
      const fromSite = await attachment(site);
      const sections = {
        Files: { Manual: { _p3d_type: ATTACHMENT, id: fromSite.id, name: 'm.pdf' } },
      };
      await ok(await patch(draft.id, object.id, sections));
      await ok(await patch(draft.id, object.id, { Files: { Manual: { ...sections.Files.Manual, id: uploaded.id } } }));

      // Another organization's draft id is no context; a closed draft takes no uploads.
      const other = await createOrg(t);
      await refused(
        () => other.admin.post(`/v1/twin/${draft.id}/object/attachments`, { objectId: 'o', name: 'a.pdf', size: 3 }),
        404,
        'Not Found',
      );
      const pending = await attachment(draft.id, false);
      expect((await org.admin.post(`/v1/twin/${draft.id}/discard`, {})).status).toBe(200);
      await refused(
        () => org.admin.post(`/v1/twin/${draft.id}/object/attachments`, { objectId: 'o', name: 'late.pdf', size: 3 }),
        409,
        'DraftNotOpen',
      );
      await refused(
        () => org.admin.post(`/v1/twin/${draft.id}/object/attachments/${pending.id}/finalize`, { etag: 'a'.repeat(32) }),
        409,
        'DraftNotOpen',
      );
      expect((await org.admin.get(`/v1/twin/${draft.id}/object/any/attachments`)).status).toBe(200);
    });
  });

  describe('the deprecated PATCH /v1/twin/{ctx}/assets/{assetId}/metadata', () => {
    const DEPRECATION = '@1795392000';

    it('changes an asset’s metadata as the object route does, answering Deprecation and a successor Link', async () => {
      const asset = await create(siteId);
      const path = `/v1/twin/${siteId}/assets/${asset.id}/metadata`;
      const response = await org.admin.request(
        'PATCH',
        path,
        JSON.stringify({ sections: { General: { Weight: 4 } } }),
        MERGE_PATCH,
      );
      const body = await ok(response);
      expect(body).toMatchObject({ objectId: asset.id, objectType: 'asset', sections: { General: { Weight: 4 } } });
      expect(response.headers.get('deprecation')).toBe(DEPRECATION);
      expect(response.headers.get('link')).toBe(`</eu/reality${metadataPath(siteId, asset.id)}>; rel="successor-version"`);
      expect(await ok(await org.admin.get(metadataPath(siteId, asset.id)))).toEqual(body);
      expect((await auditOf(t, org, asset.id)).at(-1)).toMatchObject({ action: 'asset.metadata-updated' });

      const draft = await openDraft(org, siteId);
      const throughDraft = await ok(
        await org.admin.patch(`/v1/twin/${draft.id}/assets/${asset.id}/metadata`, { sections: { General: { Weight: 5 } } }),
      );
      expect(throughDraft.sections).toEqual({ General: { Weight: 5 } });
      expect((await ok(await org.admin.get(metadataPath(siteId, asset.id)))).sections).toEqual({ General: { Weight: 4 } });
    });

    it('answers 404 to a point of interest or zone id, and 400 to bad values, still marked deprecated', async () => {
      const asset = await create(siteId);
      for (const kind of ['pointOfInterest', 'zone'] as const) {
        const object = await create(siteId, kind);
        const response = await refused(
          () => org.admin.patch(`/v1/twin/${siteId}/assets/${object.id}/metadata`, { sections: { General: { Weight: 1 } } }),
          404,
          'Not Found',
          'Asset not found',
        );
        expect(response.headers.get('deprecation')).toBe(DEPRECATION);
      }
      const bad = await refused(
        () => org.admin.patch(`/v1/twin/${siteId}/assets/${asset.id}/metadata`, { sections: { General: { Weight: 'x' } } }),
        400,
        'ValidationError',
        /body\.sections\.General\.Weight/,
      );
      expect(bad.headers.get('deprecation')).toBe(DEPRECATION);
    });

    it('is deprecated in openapi.json; the object metadata routes are not', async () => {
      const response = await fetch(`${t.regionUrl(org.region)}/openapi.json`);
      const document = await response.json();
      const deprecated = document.paths['/v1/twin/{contextId}/assets/{assetId}/metadata'].patch;
      expect(deprecated).toMatchObject({ operationId: 'updateAssetMetadata', deprecated: true });
      const current = document.paths['/v1/twin/{contextId}/object/{objectId}/metadata'];
      expect(current.get.operationId).toBe('getObjectMetadata');
      expect(current.patch.operationId).toBe('updateObjectMetadata');
      expect(current.patch.deprecated).toBeUndefined();
      expect(Object.keys(current.patch.requestBody.content).sort()).toEqual(['application/json', 'application/merge-patch+json']);
      expect(document.components.schemas.ObjectMetadata).toBeDefined();
    });
  });
});
