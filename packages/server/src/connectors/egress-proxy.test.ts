import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEgressAllow } from '../egress/policy.js';
import { openTunnel } from './child-network.js';
import { type ChildEgress, openChildEgress } from './egress-proxy.js';

/** A child's way out, spoken to as the child does: CONNECT through the parent's socket. */

let dir: string;
let site: Server;
let port: number;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-egress-'));
  site = createServer((_req, res) => res.end('hello from the site')).listen(0, '127.0.0.1');
  await new Promise((resolve) => site.once('listening', resolve));
  port = (site.address() as { port: number }).port;
});

afterAll(async () => {
  site.close();
  await rm(dir, { recursive: true, force: true });
});

const refusal = (egress: ChildEgress, host: string, at: number) =>
  openTunnel(egress.path, host, at).then(
    (socket) => {
      socket.destroy();
      return 'connected';
    },
    (error: Error & { code?: string }) => `${error.code}: ${error.message}`,
  );

async function get(egress: ChildEgress, host: string, at: number): Promise<string> {
  const socket = await openTunnel(egress.path, host, at);
  socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
  let answer = '';
  for await (const chunk of socket) answer += chunk;
  return answer.slice(answer.indexOf('\r\n\r\n') + 4);
}

describe('the egress socket of a child', () => {
  it('lets nothing out between runs, then what the grant and the policy allow', async () => {
    const egress = await openChildEgress(dir, parseEgressAllow('127.0.0.1'));
    try {
      expect(await refusal(egress, '127.0.0.1', port)).toBe(
        'EGRESS_REFUSED: refused: no run of this connector is under way',
      );
      egress.grant({ hosts: null });
      expect(await get(egress, '127.0.0.1', port)).toBe('hello from the site');
      egress.grant({ hosts: new Set(['api.example.com']) });
      expect(await refusal(egress, '127.0.0.1', port)).toMatch(
        /^EGRESS_REFUSED: refused: 127\.0\.0\.1 is not a host this connection's credentials were granted for/,
      );
    } finally {
      await egress.close();
    }
  });

  it("lets a browser session's domains through: the domain itself and its subdomains, not a look-alike", async () => {
    const egress = await openChildEgress(dir, parseEgressAllow('127.0.0.1,localhost'));
    try {
      egress.grant({ hosts: new Set(), domains: ['localhost'] });
      expect(await get(egress, 'localhost', port)).toBe('hello from the site');
      // `localhost` ends with "host", but is not a subdomain of it.
      egress.grant({ hosts: new Set(), domains: ['host'] });
      expect(await refusal(egress, 'localhost', port)).toMatch(
        /^EGRESS_REFUSED: refused: localhost is not a host this connection's credentials were granted for/,
      );
    } finally {
      await egress.close();
    }
  });

  it('refuses an internal address with one answer per host, whatever the port or what listens there', async () => {
    const egress = await openChildEgress(dir, parseEgressAllow(''));
    egress.grant({ hosts: null });
    try {
      const open = await refusal(egress, '127.0.0.1', port);
      expect(open).toBe('EGRESS_REFUSED: refused by the egress policy: 127.0.0.1 is a loopback address');
      expect(await refusal(egress, '127.0.0.1', 4)).toBe(open);
      expect(await refusal(egress, 'localhost', port)).toBe(
        'EGRESS_REFUSED: refused by the egress policy: localhost is a loopback address',
      );
      expect(await refusal(egress, '169.254.169.254', 80)).toBe(
        'EGRESS_REFUSED: refused by the egress policy: 169.254.169.254 is a cloud metadata address',
      );
      expect(await refusal(egress, '::ffff:127.0.0.1', port)).toMatch(/refused by the egress policy/);
    } finally {
      await egress.close();
    }
  });

  it('answers what is not a CONNECT line with 400, and closes', async () => {
    const egress = await openChildEgress(dir, parseEgressAllow('127.0.0.1'));
    egress.grant({ hosts: null });
    try {
      for (const line of [
        `GET http://127.0.0.1:${port}/ HTTP/1.1`,
        `CONNECT 127.0.0.1:${port}@evil HTTP/1.1`,
        'CONNECT :80 HTTP/1.1',
        'CONNECT a:99999 HTTP/1.1',
      ]) {
        const answer = await new Promise<string>((resolve) => {
          const socket = connect(egress.path, () => socket.write(`${line}\r\n\r\n`));
          let text = '';
          socket.on('data', (chunk) => {
            text += chunk;
          });
          socket.on('close', () => resolve(text));
        });
        expect(answer, line).toMatch(/^HTTP\/1\.1 400 /);
      }
    } finally {
      await egress.close();
    }
  });

  it('passes bytes sent with the CONNECT line on to the tunnel', async () => {
    const egress = await openChildEgress(dir, parseEgressAllow('127.0.0.1'));
    egress.grant({ hosts: null });
    try {
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(egress.path, () =>
          socket.write(
            `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
          ),
        );
        let text = '';
        socket.on('data', (chunk) => {
          text += chunk;
        });
        socket.on('close', () => resolve(text));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 200 Connection established/);
      expect(answer).toMatch(/hello from the site$/);
    } finally {
      await egress.close();
    }
  });

  it("holds a few of the server's file descriptors per child, however many connections it opens", async () => {
    const egress = await openChildEgress(dir, parseEgressAllow('127.0.0.1'));
    const descriptors = async () => (await readdir('/proc/self/fd')).length;
    const before = await descriptors();
    const clients = await Promise.all(
      Array.from(
        { length: 300 },
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect({ path: egress.path, allowHalfOpen: true });
            socket.on('error', () => resolve(socket));
            socket.on('connect', () => resolve(socket));
          }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Our 300 client ends are in this process too; the server's ends are at most its cap.
    expect((await descriptors()) - before - 300).toBeLessThanOrEqual(40);
    for (const client of clients) client.destroy();
    await egress.close();
  });
});
