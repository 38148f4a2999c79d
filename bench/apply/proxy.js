// A recording HTTP proxy in front of svc: every request the CLI (or the baseline client) sends goes
// through it and is recorded, so requests and writes are counted on the wire, not by the client
// that sends them. The JS twin of packages/cli/test/recording-proxy.ts (which the tests use), without
// its failure injection, so that the benchmark runs on the built packages alone.
import { createServer } from 'node:http';

/**
 * The plan's settings check (`POST .../config/check`): it writes nothing, and the plan sends one
 * per agent whose settings change (none on a no-op), so it is counted apart from the plan's reads.
 */
export const isCheck = (r) => r.method === 'POST' && /\/config\/check(\?|$)/.test(r.url);

/** A write is every method but GET, except the schema `list` operation (a POST that only reads) and a check. */
export const isWrite = (r) => r.method !== 'GET' && !/"action":"list"/.test(r.body) && !isCheck(r);

// Hop-by-hop headers are the proxy's own business; fetch refuses some of them anyway.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host', 'content-length']);

export async function startRecordingProxy(target) {
  const requests = [];
  const server = createServer(async (req, res) => {
    try {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = Buffer.concat(chunks);
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: body.toString(),
      });
      const headers = Object.fromEntries(
        Object.entries(req.headers).filter(([name]) => !HOP_BY_HOP.has(name)),
      );
      const answer = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: body.length > 0 ? body : undefined,
      });
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      res.end(Buffer.from(await answer.arrayBuffer()));
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`recording proxy: ${error.message}`);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    requests,
    writes: () => requests.filter(isWrite),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Counts what the proxy saw between two points: `const count = counter(proxy); ...; count()`. */
export function counter(proxy) {
  const from = proxy.requests.length;
  return () => {
    const seen = proxy.requests.slice(from);
    const checks = seen.filter(isCheck).length;
    return { requests: seen.length - checks, checks, writes: seen.filter(isWrite).length, seen };
  };
}
