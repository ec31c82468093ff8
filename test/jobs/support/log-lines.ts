import { Writable } from 'node:stream';
import Fastify, { type FastifyBaseLogger } from 'fastify';

/** A pino logger (the server's own, through Fastify) at info level whose lines are collected, parsed, in `lines`. */
export function collectedLog(): { log: FastifyBaseLogger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: Fastify({ logger: { level: 'info', stream } }).log, lines };
}
