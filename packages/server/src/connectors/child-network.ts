/**
 * In the child, before any connector code loads: `fetch` goes out through the parent's egress
 * socket (egress-proxy.ts) as an HTTP CONNECT tunnel, with TLS on top here, end to end. In the
 * OS sandbox there is no other way out (no network interface, no DNS); `node:http`, `node:net` and
 * a `fetch` that connector code rebuilds lead nowhere. Without the sandbox (bundled connectors on a
 * host without bubblewrap), this is how their calls meet the egress policy and the grant.
 */
import { isIP, connect as socketConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { buildConnector } from 'undici';

const HEAD_BYTES = 16 * 1024;

/** A socket through the parent to `host:port`, or an Error with the parent's reason. */
export function openTunnel(socketPath: string, host: string, port: number) {
  return new Promise<import('node:net').Socket>((resolve, reject) => {
    const socket = socketConnect(socketPath);
    let head = Buffer.alloc(0);
    const fail = (error: Error) => {
      socket.destroy();
      reject(error);
    };
    socket.once('error', fail);
    socket.once('connect', () => {
      const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
      socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`);
    });
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end === -1) {
        if (head.length > HEAD_BYTES) fail(new Error('the egress socket answered garbage'));
        return;
      }
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.toString('latin1'))?.[1]);
      if (status === 200) {
        socket.off('data', onData);
        socket.off('error', fail);
        if (head.length > end + 4) socket.unshift(head.subarray(end + 4));
        resolve(socket);
        return;
      }
      // A refusal's reason is its body, which the parent closes the socket after. Its code tells
      // the SDK's retries what happened: a refusal by the policy is final, a refused connection to
      // an allowed host may pass next time.
      socket.once('end', () => {
        const reason = head.subarray(end + 4).toString('utf8') || `refused (${status})`;
        const code = status === 403 ? 'EGRESS_REFUSED' : (/: (E[A-Z]+)$/.exec(reason)?.[1] ?? 'ECONNRESET');
        fail(Object.assign(new Error(reason), { code }));
      });
    };
    socket.on('data', onData);
  });
}

/** Makes the global `fetch` go through the parent's egress socket at `socketPath`. */
export function routeFetchThroughParent(socketPath: string): void {
  const connect: buildConnector.connector = (options, callback) => {
    const https = options.protocol === 'https:';
    const port = Number(options.port) || (https ? 443 : 80);
    openTunnel(socketPath, options.hostname.replace(/^\[(.*)\]$/, '$1'), port).then(
      (socket) => {
        if (!https) {
          callback(null, socket);
          return;
        }
        const secure = tlsConnect({
          socket,
          ...(isIP(options.hostname) ? {} : { servername: options.servername || options.hostname }),
          ALPNProtocols: ['http/1.1'],
        });
        secure.once('secureConnect', () => callback(null, secure));
        secure.once('error', (error) => callback(error, null));
      },
      (error: Error) => callback(error, null),
    );
  };
  // undici is loaded at the first call: a child whose connector never fetches starts sooner.
  let client: Promise<{
    fetch: typeof import('undici').fetch;
    dispatcher: import('undici').Dispatcher;
  }> | null = null;
  const load = () => {
    client ??= import('undici').then((module) => {
      // undici is CommonJS: bundled (from the sources, source-build.ts) its exports are `default`.
      const undici = 'Agent' in module ? module : (module as unknown as { default: typeof module }).default;
      return { fetch: undici.fetch, dispatcher: new undici.Agent({ connect }) };
    });
    return client;
  };
  // A `Request` of the global fetch is not one of undici's: it is passed as its parts.
  const routed = async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const parts =
      typeof input === 'string' || input instanceof URL
        ? { url: input, init: {} }
        : {
            url: input.url,
            init: {
              method: input.method,
              headers: input.headers,
              body: input.body === null ? undefined : await input.arrayBuffer(),
              signal: input.signal,
              redirect: input.redirect,
            },
          };
    const { fetch: undiciFetch, dispatcher } = await load();
    return (await undiciFetch(parts.url, {
      ...parts.init,
      ...(init as object),
      dispatcher,
    } as never)) as unknown as Response;
  };
  globalThis.fetch = routed as typeof fetch;
}
