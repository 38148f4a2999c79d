import { useState } from 'preact/hooks';

/**
 * A change a button makes: `act(work)` marks it busy, clears the last error, runs `work`, then
 * `done()` if given (the page reloads what changed); a failure is kept in `error` for a `<ProblemNote>`.
 */
export function useAction(done?: () => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<Error | null>(null);
  const act = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      done?.();
    } catch (failure) {
      setError(failure as Error);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, act };
}
