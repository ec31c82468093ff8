import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { outputOf, type ProcessOutput } from './process-output.js';

/**
 * The `sh` blocks of one section of a markdown page, in order: what a reader copies. A page's
 * commands are run as written, so the page cannot drift from the API.
 */
export function shellBlocksOfSection(markdownPath: string, heading: string): string[] {
  return codeBlocksOfSection(markdownPath, heading, 'sh');
}

/** The code blocks of one language in one section of a markdown page, in order. */
export function codeBlocksOfSection(markdownPath: string, heading: string, language: string): string[] {
  const text = fs.readFileSync(markdownPath, 'utf8');
  const start = text.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`${markdownPath} has no section "${heading}"`);
  const level = heading.split(' ')[0]!;
  const rest = text.slice(start + heading.length + 2);
  const next = rest.search(new RegExp(`^${level} `, 'm'));
  const section = next < 0 ? rest : rest.slice(0, next);
  return [...section.matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((match) => match[1]!);
}

/** What a block says it prints: its `# prints: …` comments, in order. */
export function expectedPrints(blocks: string[]): string[] {
  return blocks.flatMap((block) => [...block.matchAll(/^# prints: (.*)$/gm)].map((match) => match[1]!));
}

/** Runs the blocks as one bash script that stops at the first failing command. */
export function runShellBlocks(blocks: string[], env: Record<string, string>, cwd: string): Promise<ProcessOutput> {
  const script = `set -euo pipefail\n${blocks.join('\n')}`;
  const child = spawn('bash', ['-c', script], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  return outputOf(child);
}
