import type { TestPlatform } from './platform.js';

/**
 * A cookie-keeping HTTP caller of the authorization server's pages, for the tests that need no
 * browser: it follows nothing, so each answer's status and Location can be checked.
 */
export class PageSession {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly t: TestPlatform) {}

  private remember(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const [name = '', value = ''] = pair.split('=');
      const expired = attributes.some((attribute) => /^\s*(max-age=0|expires=thu, 01 jan 1970)/i.test(attribute));
      if (expired || value === '') this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  async get(path: string): Promise<{ status: number; text: string; headers: Headers }> {
    const response = await fetch(`${this.t.origin}${path}`, { redirect: 'manual', headers: this.cookieHeader() });
    this.remember(response);
    return { status: response.status, text: await response.text(), headers: response.headers };
  }

  async post(path: string, form: Record<string, string | string[]>): Promise<{ status: number; text: string; headers: Headers }> {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) {
      for (const one of Array.isArray(value) ? value : [value]) body.append(name, one);
    }
    const response = await fetch(`${this.t.origin}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    this.remember(response);
    return { status: response.status, text: await response.text(), headers: response.headers };
  }

  private cookieHeader(): Record<string, string> {
    if (this.cookies.size === 0) return {};
    return { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
  }

  /** Signs in through the settings sign-in form; returns the session's CSRF token from the next page. */
  async signIn(email: string, password: string): Promise<{ status: number; location: string | null }> {
    const form = await this.get('/auth/sign-in');
    const response = await this.post('/auth/sign-in', { csrf: csrfOf(form.text), email, password });
    return { status: response.status, location: response.headers.get('location') };
  }
}

/** The CSRF token of the first form on a page. */
export function csrfOf(pageText: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(pageText);
  if (!match?.[1]) throw new Error('no CSRF field on the page');
  return match[1];
}
