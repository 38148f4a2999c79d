/**
 * A child's only way out (DESIGN.md section 10, layer 2): a Unix socket of its parent that speaks
 * HTTP CONNECT. The child asks for `host:port`; the parent answers from the deployment's egress
 * policy (SVC_EGRESS_ALLOW: loopback, private, link-local and metadata addresses refused) and the
 * run's grant (a connection that holds credentials reaches only the hosts they were granted for),
 * connects, and pipes bytes. TLS runs end to end in the child: the parent sees host names, never
 * content.
 *
 * A refusal never depends on the port or on what listens there: the policy is decided before any
 * connection is tried, so the answer cannot be used to scan a network.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { createServer, isIP, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { join } from 'node:path';
import { guardedLookup } from '../egress/client.js';
import { bareHost, checkAddress, type EgressPolicy, EgressRefusedError } from '../egress/policy.js';

/** What the run under way may reach; null between runs (nothing). */
export interface EgressGrant {
  /** Host names (lowercase) the connection's credentials were granted for; null: any host. */
  hosts: ReadonlySet<string> | null;
  /**
   * Domains (lowercase) whose every host may be reached too, besides `hosts`: a browser session's
   * `requiredDomains`, where its cookies belong (connections/session-store.ts).
   */
  domains?: readonly string[];
}

export interface ChildEgress {
  /** The socket's path on the host. */
  readonly path: string;
  grant(grant: EgressGrant | null): void;
  /** Closes the socket and every tunnel through it. */
  close(): Promise<void>;
}

/** Connections to the egress socket one child may hold open at once. */
const MAX_TUNNELS = 32;
const HEAD_BYTES = 8 * 1024;
const HEAD_MS = 10_000;
const CONNECT_MS = 10_000;

export async function openChildEgress(dir: string, policy: EgressPolicy): Promise<ChildEgress> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${randomBytes(8).toString('hex')}.sock`);
  let current: EgressGrant | null = null;
  // Every socket of this child's, both ends of each tunnel: all closed with the child.
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };
  const server: Server = createServer((socket) => {
    track(socket);
    socket.on('error', () => socket.destroy());
    readHead(socket)
      .then((target) => tunnel(socket, target, current, policy, track))
      .catch((error: Error) => refuse(socket, 400, error.message));
  });
  // The server's file descriptors are every tenant's: a child gets a few, and the kernel drops
  // connections past them at once.
  server.maxConnections = MAX_TUNNELS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  return {
    path,
    grant(grant) {
      current = grant;
    },
    async close() {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(path, { force: true });
    },
  };
}

interface Target {
  host: string;
  port: number;
}

/** The CONNECT line of a tunnel request, and nothing past the blank line. */
function readHead(socket: Socket): Promise<Target> {
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const timer = setTimeout(() => done(new Error('no CONNECT request')), HEAD_MS);
    const done = (error: Error | null, target?: Target) => {
      clearTimeout(timer);
      socket.off('data', onData);
      if (error) reject(error);
      else resolve(target as Target);
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > HEAD_BYTES) done(new Error('the CONNECT request is too long'));
        return;
      }
      // Bytes past the head belong to the tunnel: put back for it, once this reader is gone (it
      // would read them again) and the socket waits for the tunnel to read on.
      socket.off('data', onData);
      socket.pause();
      if (head.length > end + 4) socket.unshift(head.subarray(end + 4));
      const line = head.subarray(0, end).toString('latin1').split('\r\n')[0] ?? '';
      const match = /^CONNECT (\[[0-9a-fA-F:.]+\]|[^\s:/[\]]+):(\d{1,5}) HTTP\/1\.[01]$/.exec(line);
      const port = Number(match?.[2]);
      if (!match || port < 1 || port > 65535) done(new Error('expected "CONNECT host:port HTTP/1.1"'));
      else done(null, { host: bareHost(match[1] as string), port });
    };
    socket.on('data', onData);
  });
}

function tunnel(
  client: Socket,
  target: Target,
  grant: EgressGrant | null,
  policy: EgressPolicy,
  track: (socket: Socket) => void,
): void {
  const host = target.host.replace(/\.$/, '');
  if (!grant) {
    refuse(client, 403, 'refused: no run of this connector is under way');
    return;
  }
  if (
    grant.hosts &&
    !grant.hosts.has(host) &&
    !grant.domains?.some((d) => host === d || host.endsWith(`.${d}`))
  ) {
    refuse(
      client,
      403,
      `refused: ${host} is not a host this connection's credentials were granted for; set the connection's credentials again to grant it`,
    );
    return;
  }
  const literal = isIP(host) ? checkAddress(policy, host, host) : null;
  if (literal) {
    refuse(client, 403, policyRefusal(literal));
    return;
  }
  const upstream = tcpConnect({
    host,
    port: target.port,
    lookup: guardedLookup(policy),
    timeout: CONNECT_MS,
  });
  track(upstream);
  const failed = (error: Error & { code?: string }) => {
    upstream.destroy();
    if (error instanceof EgressRefusedError) refuse(client, 403, policyRefusal(error));
    else refuse(client, 502, `could not connect to ${host}:${target.port}: ${error.code ?? error.message}`);
  };
  upstream.once('error', failed);
  upstream.once('timeout', () => failed(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' })));
  upstream.once('connect', () => {
    upstream.off('error', failed);
    upstream.setTimeout(0);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.write('HTTP/1.1 200 Connection established\r\n\r\n');
    client.pipe(upstream).pipe(client);
  });
}

/** One message per refused host, whatever its port: the host and why, never what listens there. */
const policyRefusal = (error: EgressRefusedError) =>
  `refused by the egress policy: ${error.host} is ${error.reason}`;

function refuse(socket: Socket, status: number, reason: string): void {
  if (socket.destroyed) return;
  const body = Buffer.from(reason, 'utf8');
  // Closed whether or not the child reads the answer: a child that never does keeps no descriptor.
  setTimeout(() => socket.destroy(), 1000).unref();
  socket.end(
    `HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Refused'}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${reason}`,
  );
}
