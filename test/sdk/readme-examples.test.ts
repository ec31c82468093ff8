import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const README = path.join(ROOT, 'packages/sdk/README.md');

/**
 * What the README's examples take as given (a person's own values, and what an earlier example
 * made): declared once, globally, so an example that makes its own shadows it.
 */
const GIVEN = `import type * as sdk from '@reality-data-platform/sdk';
declare global {
  var authUrl: string;
  var clientId: string;
  var rdp: sdk.RdpClient;
  var site: sdk.Schema<'Node'>;
  var bundleId: string;
  var redirectedTo: string;
  var save: (tokens: sdk.TokenSet) => void;
  var loadState: () => sdk.UploadState;
  var writeFileSync: (file: string, text: string) => void;
  var app: {
    post(
      path: string,
      handler: (
        request: { headers: Record<string, string | string[] | undefined>; rawBody: string },
        reply: { code(status: number): { send(): unknown } },
      ) => Promise<unknown>,
    ): void;
  };
  var ok: typeof sdk.ok;
}
export {};
`;

describe("the SDK README's examples", () => {
  it('type-check against the SDK as built (each example a module of its own)', () => {
    const markdown = fs.readFileSync(README, 'utf8');
    const blocks = [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] as string);
    expect(blocks.length).toBeGreaterThanOrEqual(6);
    // Under the root's node_modules, so that the package name resolves as it does for a user.
    const dir = fs.mkdtempSync(path.join(ROOT, 'node_modules', '.sdk-readme-'));
    try {
      const files = [path.join(dir, 'given.d.mts')];
      fs.writeFileSync(files[0] as string, GIVEN);
      blocks.forEach((block, index) => {
        const file = path.join(dir, `example-${index + 1}.mts`);
        // A block without imports is still a module (top-level await, its own scope).
        fs.writeFileSync(file, /^import /m.test(block) ? block : `${block}\nexport {};\n`);
        files.push(file);
      });
      const program = ts.createProgram(files, {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules/@types')],
      });
      const problems = ts
        .getPreEmitDiagnostics(program)
        .map(
          (diagnostic) =>
            `${path.basename(diagnostic.file?.fileName ?? '')}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
        );
      expect(problems).toEqual([]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
