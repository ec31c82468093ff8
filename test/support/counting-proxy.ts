import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedPut {
  partNumber: number;
  /** The platform's answer, once it has answered (undefined: the client went away first). */
  status: number | undefined;
}

/**
 * A pass-through HTTP proxy in front of a platform whose public address it is: everything goes
 * through it, and it notes each blob PUT (a part of an upload) with its answer. A test of the
 * client sees what was really sent, not what the client says it sent.
 */
export class CountingProxy {
  readonly puts: ProxiedPut[] = [];
  private target = '';
  private readonly server = http.createServer((request, response) => this.forward(request, response));

  static async start(): Promise<CountingProxy> {
    const proxy = new CountingProxy();
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', () => resolve()));
    return proxy;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Where requests go: the platform's real origin, known once it listens. */
  forwardTo(origin: string): void {
    this.target = origin;
  }

  private forward(request: http.IncomingMessage, response: http.ServerResponse): void {
    const url = new URL(request.url ?? '/', this.target);
    let put: ProxiedPut | undefined;
    if (request.method === 'PUT' && url.pathname.startsWith('/blob/')) {
      put = { partNumber: Number(url.searchParams.get('partNumber') ?? '1'), status: undefined };
      this.puts.push(put);
    }
    const upstream = http.request(url, { method: request.method, headers: request.headers }, (answer) => {
      if (put) put.status = answer.statusCode;
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.destroy());
    request.on('aborted', () => upstream.destroy());
    response.on('close', () => {
      if (!response.writableFinished) upstream.destroy();
    });
    request.pipe(upstream);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
