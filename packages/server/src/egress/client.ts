import { lookup as systemLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import { Agent, buildConnector, type Dispatcher, fetch as undiciFetch } from 'undici';
import { bareHost, checkAddress, type EgressPolicy, EgressRefusedError } from './policy.js';

/** Answers every address of a host name, in the order to try them. */
export type Resolve = (hostname: string) => Promise<string[]>;

export interface EgressClientOptions {
  policy: EgressPolicy;
  /** Default: the system resolver (`/etc/hosts`, then DNS), every address. Tests inject their own. */
  resolve?: Resolve;
  /** Extra TLS options, such as a test CA. */
  tls?: Pick<ConnectionOptions, 'ca' | 'rejectUnauthorized'>;
  /** Milliseconds to establish a connection; default 10 s. */
  connectTimeout?: number;
  /** The largest WebSocket message taken, in bytes (undici's default: 128 MiB). */
  maxWebSocketMessage?: number;
}

/**
 * The one way out for calls to addresses that orgs write (DESIGN.md section 6). `fetch` has the
 * signature of the global one, for the AI SDK's and the MCP SDK's `fetch` options; `dispatcher`
 * is for undici callers; `connect` makes the raw sockets (TCP or TLS) that both use.
 */
export interface EgressClient {
  fetch: typeof globalThis.fetch;
  dispatcher: Dispatcher;
  connect: buildConnector.connector;
  close(): Promise<void>;
}

const systemResolve: Resolve = async (hostname) =>
  (await systemLookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * A `lookup` for `net.connect` that answers only addresses the policy allows. The socket connects
 * to exactly what this answers, so the check holds for the address actually connected to, and a
 * name that resolves differently the next time (DNS rebinding) is checked again at that time. One
 * refused address refuses the whole name: a name that mixes public and internal addresses is what
 * a rebinding attack looks like.
 */
export function guardedLookup(policy: EgressPolicy, resolve: Resolve = systemResolve): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((addresses) => {
        for (const address of addresses) {
          const refusal = checkAddress(policy, hostname, address);
          if (refusal) throw refusal;
        }
        const family = typeof options.family === 'number' ? options.family : 0;
        const entries = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((entry) => entry.family !== 0 && (family === 0 || entry.family === family));
        const first = entries[0];
        if (!first) {
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), {
            code: 'ENOTFOUND',
            hostname,
          });
        }
        if (options.all) callback(null, entries);
        else callback(null, first.address, first.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, ''));
  };
}

export function createEgressClient(options: EgressClientOptions): EgressClient {
  const { policy } = options;
  const base = buildConnector({
    ...options.tls,
    timeout: options.connectTimeout ?? 10_000,
    lookup: guardedLookup(policy, options.resolve),
  });
  // A literal address never reaches `lookup` (net connects to it directly), so it is checked here.
  const connect: buildConnector.connector = (connectOptions, callback) => {
    const host = bareHost(connectOptions.hostname);
    const refusal = isIP(host) ? checkAddress(policy, host, host) : null;
    if (refusal) {
      callback(refusal, null);
      return;
    }
    base(connectOptions, callback);
  };
  // Redirects are followed through the same dispatcher, so every hop connects through `connect`.
  const dispatcher = new Agent({
    connect,
    ...(options.maxWebSocketMessage ? { webSocket: { maxPayloadSize: options.maxWebSocketMessage } } : {}),
  });

  const guardedFetch = async (input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) => {
    try {
      return (await undiciFetch(requestUrl(input), {
        ...(await requestInit(input)),
        ...(init as object),
        dispatcher,
      })) as unknown as Response;
    } catch (error) {
      // fetch reports a failed connection as TypeError('fetch failed') with the reason as its cause;
      // a refusal is thrown as itself, so that callers can tell it from a network failure (and do
      // not retry it).
      const cause = (error as { cause?: unknown }).cause;
      throw cause instanceof EgressRefusedError ? cause : error;
    }
  };

  return {
    fetch: guardedFetch as typeof globalThis.fetch,
    dispatcher,
    connect,
    close: () => dispatcher.close(),
  };
}

/** A `Request` made by another fetch implementation (the global one) is read as its parts. */
function requestUrl(input: Parameters<typeof globalThis.fetch>[0]): string | URL {
  return typeof input === 'string' || input instanceof URL ? input : input.url;
}

async function requestInit(input: Parameters<typeof globalThis.fetch>[0]): Promise<object> {
  if (typeof input === 'string' || input instanceof URL) return {};
  const body = input.body === null ? undefined : await input.arrayBuffer();
  return {
    method: input.method,
    headers: input.headers,
    body,
    signal: input.signal,
    redirect: input.redirect,
  };
}
