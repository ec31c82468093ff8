import type { FastifyReply } from 'fastify';
import { PAGE_HEADERS } from './html.js';

/** Reading posted forms and answering with pages: every page carries PAGE_HEADERS, every redirect is a 303. */

export type Form = Record<string, string | string[] | undefined>;

export function field(form: Form, name: string): string {
  const value = form[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

export function fields(form: Form, name: string): string[] {
  const value = form[name];
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

export function lines(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

export function sendPage(reply: FastifyReply, status: number, body: string) {
  return reply.code(status).headers(PAGE_HEADERS).send(body);
}

export function seeOther(reply: FastifyReply, location: string) {
  return reply.code(303).headers(PAGE_HEADERS).header('location', location).send();
}
