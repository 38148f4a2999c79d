/**
 * The body of an answer from an address an org wrote, read up to `max` bytes: such an endpoint may
 * answer without end, and a whole-body read would hold all of it in memory until the timeout.
 * Null when it is longer (the rest is not read).
 */
export async function readCapped(response: Response, max: number): Promise<string | null> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}
