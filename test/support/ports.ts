import net from 'node:net';

/** A port free on 127.0.0.1 now: for servers whose address must be known before they start. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  const port = await new Promise<number>((resolve) =>
    probe.listen(0, '127.0.0.1', () => resolve((probe.address() as net.AddressInfo).port)),
  );
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
