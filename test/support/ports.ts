import fs from 'node:fs';
import net from 'node:net';

/**
 * The first port of the kernel's ephemeral range: outgoing connections take their source ports
 * from it, any of them at any time (a Redis client retrying a dead address makes many).
 */
function ephemeralRangeStart(): number {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const start = Number(low);
    return Number.isInteger(start) && start > 21_000 ? start : 32_768;
  } catch {
    return 32_768;
  }
}

const LOWEST = 20_000;

function listensOn(port: number): Promise<boolean> {
  const probe = net.createServer();
  return new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A port free on 127.0.0.1 now, for servers whose address must be known before they start.
 * Chosen below the ephemeral range: a port the kernel handed out for `listen(0)` is one it may
 * give an outgoing connection's source port between the probe's close and the server's listen
 * (CI met EADDRINUSE so); below the range only another listener can take it.
 */
export async function freePort(): Promise<number> {
  const end = ephemeralRangeStart();
  for (;;) {
    const port = LOWEST + Math.floor(Math.random() * (end - LOWEST));
    if (await listensOn(port)) return port;
  }
}
