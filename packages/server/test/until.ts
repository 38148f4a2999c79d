/**
 * Polls `check` until it answers something truthy, and answers that; after `ms`, fails naming
 * `what` and, when given, what the processes under test said (`said()`), so a timeout explains
 * itself. A deadline only bounds how long a failure takes: no test asserts a time with it.
 */
export async function until<T>(
  what: string,
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  options: { ms?: number; everyMs?: number; said?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + (options.ms ?? 60_000);
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${what}` + (options.said ? `; the processes said:\n${options.said()}` : ''),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.everyMs ?? 50));
  }
}
